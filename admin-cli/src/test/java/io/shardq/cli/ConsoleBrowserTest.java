package io.shardq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardq.broker.Broker;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.NoSuchElementException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The console in a real browser: headless Chromium, driven through Debian's chromedriver, looks
 * at the pages a person would and sees numbers change as messages flow, a browse with a selector,
 * and a purge take effect after its confirmation. Skipped, saying so, where no Chromium is
 * installed ({@code apt-get install chromium chromium-driver}). Screenshots of the pages go to
 * {@code target/console-screenshots/}.
 */
@PgTest
class ConsoleBrowserTest {
    static final String CHROMIUM = "/usr/bin/chromium";
    static final String CHROMEDRIVER = "/usr/bin/chromedriver";
    static final Duration PATIENCE = Duration.ofSeconds(30);

    @TempDir
    Path tmp;

    private WebDriver browser;

    @BeforeEach
    void startBrowser() throws IOException {
        Assumptions.assumeTrue(
                new File(CHROMIUM).canExecute() && new File(CHROMEDRIVER).canExecute(),
                "skipped: the browser test needs Chromium and its driver at " + CHROMIUM + " and " + CHROMEDRIVER
                        + " (Debian: apt-get install chromium chromium-driver)");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        options.addArguments(
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--window-size=1400,1100",
                "--user-data-dir=" + Files.createDirectories(tmp.resolve("chromium")));
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER))
                .usingAnyFreePort()
                .build();
        browser = new ChromeDriver(service, options);
    }

    @AfterEach
    void stopBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    @Test
    void aPersonSeesTheBacklogFollowTheMessages_browses_andPurges(TestDatabase db) throws Exception {
        CliRunner cli = new CliRunner(db, tmp);
        cli.run("queue", "create", "web.orders", "--shards", "2");
        cli.run("topic", "create", "web.events");
        cli.run("subscription", "add", "web.events", "audit");
        cli.run("cache", "create", "web.prices");
        cli.run("cache", "put", "web.prices", "item-1", "3.50");
        try (Broker app = cli.broker("shop-app");
                ConsoleServer console = ConsoleServer.start(
                        app, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), true, 300, 60_000)) {
            String url = "http://127.0.0.1:" + console.port() + "/";
            browser.get(url + "#/");
            By backlog = By.cssSelector("tr[data-queue='web.orders'] td[data-field='backlog']");
            awaitText(backlog, "0");
            awaitText(By.cssSelector("tr[data-topic='web.events'] td[data-field='subscriptions']"), "1");

            // messages flow while the page is open: the number a person looks at follows
            CliRunner.send(
                    app,
                    "web.orders",
                    IntStream.range(0, 30)
                            .mapToObj(i -> Messages.text("order " + i, Map.of("n", i)))
                            .toList());
            awaitText(backlog, "30");
            awaitText(By.cssSelector("tr[data-topic='web.events'] td[data-field='published']"), "0");
            await().atMost(PATIENCE)
                    .until(() -> browser.findElements(By.cssSelector("[data-chart] canvas"))
                                    .size()
                            >= 3);
            screenshot("destinations");

            click(By.linkText("web.orders"));
            By queueBacklog = By.cssSelector("dd[data-field='backlog']");
            awaitText(queueBacklog, "30");
            assertThat(browser.findElements(By.cssSelector("tr[data-shard]"))).hasSize(2);

            // the message browser with a JMS selector
            WebElement selector = browser.findElement(By.cssSelector("#browse input[name=selector]"));
            selector.sendKeys("n >= 26");
            browser.findElement(By.cssSelector("#browse button")).click();
            await().atMost(PATIENCE)
                    .until(() -> browser.findElements(By.cssSelector("tr[data-message]"))
                                    .size()
                            == 4);
            assertThat(texts(By.cssSelector("tr[data-message] td[data-field='body']")))
                    .containsExactlyInAnyOrder("\"order 26\"", "\"order 27\"", "\"order 28\"", "\"order 29\"");
            screenshot("queue");
            selector.clear();
            selector.sendKeys("n >= ");
            browser.findElement(By.cssSelector("#browse button")).click();
            await().atMost(PATIENCE).until(() -> text(By.id("browse-summary")).contains("selector"));
            assertThat(browser.findElements(By.cssSelector("tr[data-message]"))).isEmpty();

            // purge, confirmed in the page's dialog: the backlog goes to 0
            browser.findElement(By.cssSelector("button[data-action='Purge']")).click();
            assertThat(browser.switchTo().alert().getText()).contains("Purge queue web.orders?");
            browser.switchTo().alert().accept();
            awaitText(By.id("action-result"), "purged queue web.orders: 30 messages discarded");
            awaitText(queueBacklog, "0");
            assertThat(cli.backlog("web.orders")).isZero();

            // stop enqueue, but the person changes their mind: nothing happens
            browser.findElement(By.cssSelector("button[data-action='Stop enqueue']"))
                    .click();
            browser.switchTo().alert().dismiss();
            awaitText(By.cssSelector("dd[data-field='switches']"), "enqueue on, dequeue on");

            browser.get(url + "#/instances");
            await().atMost(PATIENCE).until(() -> texts(By.cssSelector("tr[data-instance] td[data-field='name']"))
                    .contains("shop-app"));
            screenshot("instances");
            browser.get(url + "#/caches");
            awaitText(By.cssSelector("tr[data-cache='web.prices'] td[data-field='entries']"), "1");
            await().atMost(PATIENCE).until(() -> text(By.id("hit-ratio-note")).contains("KvCache.stats()"));
            screenshot("caches");
            browser.get(url + "#/topic/web.events");
            awaitText(By.cssSelector("tr[data-subscription='audit'] td[data-field='lag']"), "0");
            screenshot("topic");
        }
    }

    @Test
    void withoutAdmin_theActionsAreOff_andTheServerRefusesThem(TestDatabase db) throws Exception {
        CliRunner cli = new CliRunner(db, tmp);
        cli.run("queue", "create", "ro");
        try (Broker app = cli.broker("app");
                ConsoleServer console = ConsoleServer.start(
                        app, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), false, 300, 60_000)) {
            CliRunner.send(app, "ro", List.of(Messages.text("keep me")));
            browser.get("http://127.0.0.1:" + console.port() + "/#/queue/ro");
            awaitText(By.cssSelector("dd[data-field='backlog']"), "1");
            WebElement purge = browser.findElement(By.cssSelector("button[data-action='Purge']"));
            assertThat(purge.isEnabled()).isFalse();
            assertThat(browser.findElement(By.tagName("main")).getText()).contains("start the console with --admin");
            // a page that forges the click anyway: the server says no
            Object answer = ((org.openqa.selenium.JavascriptExecutor) browser)
                    .executeAsyncScript(
                            "const done = arguments[arguments.length - 1];"
                                    + "fetch('/api/queues/ro/purge', {method: 'POST'}).then(r => r.json().then(b => done(r.status + ' ' + b.kind)));");
            assertThat(answer).isEqualTo("403 ADMIN_OFF");
            assertThat(cli.backlog("ro")).isEqualTo(1);
        }
    }

    /** The page redraws its live part each refresh: an element found may be replaced before the click. */
    private void click(By by) {
        await().atMost(PATIENCE)
                .ignoreException(StaleElementReferenceException.class)
                .until(() -> {
                    browser.findElement(by).click();
                    return true;
                });
    }

    private void awaitText(By by, String expected) {
        await().atMost(PATIENCE).until(() -> expected.equals(text(by)));
    }

    /** The element's visible text, or "" while it is not (yet) on the page. */
    private String text(By by) {
        try {
            return browser.findElement(by).getText();
        } catch (NoSuchElementException | StaleElementReferenceException e) {
            return "";
        }
    }

    private List<String> texts(By by) {
        try {
            return browser.findElements(by).stream().map(WebElement::getText).toList();
        } catch (StaleElementReferenceException e) {
            return List.of();
        }
    }

    private void screenshot(String page) throws IOException {
        Path dir = Files.createDirectories(Path.of("target", "console-screenshots"));
        byte[] png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES);
        Files.write(dir.resolve("console-" + page + ".png"), png);
    }
}

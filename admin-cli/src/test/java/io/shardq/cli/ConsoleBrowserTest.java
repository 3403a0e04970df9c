package io.shardq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.shardq.broker.Broker;
import io.shardq.broker.SubscriptionSpec;
import io.shardq.broker.shard.BrokerSession;
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
import java.util.logging.Level;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;

/**
 * The console in a real browser: headless Chromium, driven through Debian's chromedriver, looks
 * at the pages a person would and sees numbers change as messages flow, consumers of another
 * instance counted, a browse with a selector, a message opened (headers, properties, body and the
 * size limit), a message sent from the form, and a purge take effect after its confirmation,
 * shown as a purge and not as consumption, with the browse list read again. The browser's console
 * must stay free of errors (a 404 of a favicon, a refused script) on every page. Skipped, saying
 * so, where no Chromium is installed ({@code apt-get install chromium chromium-driver}).
 * Screenshots of the pages go to {@code target/console-screenshots/}.
 *
 * <p>Every wait is on a condition with a deadline ({@link #PATIENCE}), never on time.
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
        // the page's console messages (errors, failed loads) are read back by consoleErrors()
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
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
    void aPersonSeesTheBacklogFollowTheMessages_browses_opens_sends_andPurges(TestDatabase db) throws Exception {
        CliRunner cli = new CliRunner(db, tmp);
        cli.run("queue", "create", "web.orders", "--shards", "2");
        cli.run("queue", "create", "web.payments");
        cli.run("topic", "create", "web.events");
        cli.run("subscription", "add", "web.events", "audit");
        cli.run("cache", "create", "web.prices");
        cli.run("cache", "put", "web.prices", "item-1", "3.50");
        try (Broker app = cli.broker("shop-app");
                Broker worker = cli.broker("shop-worker");
                BrokerSession workerSession = worker.openSession(BrokerSession.Mode.TRANSACTED);
                ConsoleServer console = ConsoleServer.start(
                        app, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), true, 300, 60_000)) {
            // another JVM's consumers, as an application would hold them: the console (on shop-app)
            // learns of them from the database only
            workerSession.createConsumer("web.payments", null);
            workerSession.createConsumer("web.payments", null);
            workerSession.subscribe(
                    "web.events",
                    new SubscriptionSpec(SubscriptionSpec.Kind.SHARED_DURABLE, "billing", null, null, false, "c-1"));

            String url = "http://127.0.0.1:" + console.port() + "/";
            browser.get(url + "#/");
            By backlog = By.cssSelector("tr[data-queue='web.orders'] td[data-field='backlog']");
            awaitText(backlog, "0");
            awaitText(By.cssSelector("tr[data-topic='web.events'] td[data-field='subscriptions']"), "2");
            awaitText(By.cssSelector("tr[data-queue='web.payments'] td[data-field='consumers']"), "2");
            awaitText(By.cssSelector("tr[data-topic='web.events'] td[data-field='consumers']"), "1");
            awaitText(By.cssSelector("tr[data-queue='web.orders'] td[data-field='consumers']"), "0");
            // every column says what it is once: no ENQUEUE DEQUEUE twice
            List<String> queueHeaders = await().atMost(PATIENCE)
                    .until(
                            () -> texts(By.xpath("//tr[@data-queue='web.orders']/ancestor::table[1]/thead//th")),
                            t -> !t.isEmpty());
            assertThat(queueHeaders).doesNotHaveDuplicates().contains("CONSUMERS", "WAITING", "DISK", "PURGED IN ALL");
            assertThat(browser.findElements(By.cssSelector("link[rel=icon]"))).hasSize(1);

            // messages flow while the page is open: the number a person looks at follows
            CliRunner.send(
                    app,
                    "web.orders",
                    IntStream.range(0, 30)
                            .mapToObj(i -> Messages.text("order " + i, Map.of("n", i)))
                            .toList());
            awaitText(backlog, "30");
            await().atMost(PATIENCE)
                    .until(
                            () -> text(By.cssSelector("tr[data-queue='web.orders'] td[data-field='tableBytes']")),
                            t -> t.endsWith("KiB") || t.endsWith("MiB"));
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
            // the page opens with the first messages listed
            await().atMost(PATIENCE).until(() -> rows() == 20);

            // the message browser with a JMS selector
            WebElement selector = browser.findElement(By.cssSelector("#browse input[name=selector]"));
            selector.sendKeys("n >= 26");
            click(By.cssSelector("#browse button"));
            await().atMost(PATIENCE).until(() -> rows() == 4);
            await().atMost(PATIENCE)
                    .until(
                            () -> texts(By.cssSelector("tr[data-message] td[data-field='body']")),
                            org.hamcrest.Matchers.containsInAnyOrder(
                                    "\"order 26\"", "\"order 27\"", "\"order 28\"", "\"order 29\""));

            // a message opened: headers, properties with their types, the body and the limit
            openMessage("order 27");
            awaitText(By.cssSelector("#message-body"), "order 27");
            awaitText(By.cssSelector("#message-headers dd[data-field='priority']"), "4");
            awaitText(By.cssSelector("#message-headers dd[data-field='persistent']"), "persistent");
            awaitText(By.cssSelector("tr[data-property='n'] td[data-field='type']"), "int");
            awaitText(By.cssSelector("tr[data-property='n'] td[data-field='value']"), "27");
            awaitText(By.id("body-size"), "text body, 8 bytes; shown whole (the console shows up to 64.0 KiB)");
            screenshot("message");

            // a body over the limit: the view shows its start and says so
            CliRunner.send(app, "web.orders", List.of(Messages.text("x".repeat(100_000), Map.of("n", 500))));
            selector.clear();
            selector.sendKeys("n = 500");
            click(By.cssSelector("#browse button"));
            await().atMost(PATIENCE).until(() -> rows() == 1);
            openMessage(null);
            await().atMost(PATIENCE)
                    .until(
                            () -> text(By.id("body-size")),
                            t -> t.equals("text body, 100,000 bytes; the first 64.0 KiB shown (the console's limit)"));
            assertThat(((org.openqa.selenium.JavascriptExecutor) browser)
                            .executeScript("return document.getElementById('message-body').textContent.length"))
                    .isEqualTo((long) ConsoleServer.BODY_VIEW_LIMIT);

            // the send form: a message with headers and typed properties, the list read again
            selector.clear();
            selector.sendKeys("n >= 26");
            click(By.cssSelector("#browse button"));
            await().atMost(PATIENCE).until(() -> rows() == 5);
            browser.findElement(By.cssSelector("#send textarea[name=body]")).sendKeys("hello from the console");
            browser.findElement(By.cssSelector("#send textarea[name=properties]"))
                    .sendKeys("{\"n\": 100, \"region\": \"eu\", \"rush\": true, \"weight\": 2.5}");
            browser.findElement(By.cssSelector("#send input[name=correlationId]"))
                    .sendKeys("corr-1");
            click(By.cssSelector("#send button"));
            await().atMost(PATIENCE)
                    .until(() -> text(By.id("send-result")), t -> t.matches("sent ID:\\S+ to queue web.orders"));
            awaitText(queueBacklog, "32");
            await().atMost(PATIENCE).until(() -> rows() == 6);
            openMessage("hello from the console");
            awaitText(By.cssSelector("#message-headers dd[data-field='correlationId']"), "corr-1");
            awaitText(By.cssSelector("tr[data-property='n'] td[data-field='type']"), "int");
            awaitText(By.cssSelector("tr[data-property='region'] td[data-field='value']"), "eu");
            awaitText(By.cssSelector("tr[data-property='rush'] td[data-field='type']"), "boolean");
            awaitText(By.cssSelector("tr[data-property='weight'] td[data-field='type']"), "double");
            screenshot("queue");
            // bad properties are refused in the page, nothing is sent
            WebElement props = browser.findElement(By.cssSelector("#send textarea[name=properties]"));
            props.clear();
            props.sendKeys("[1, 2]");
            click(By.cssSelector("#send button"));
            awaitText(By.id("send-result"), "Properties: expected a JSON object");
            assertThat(cli.backlog("web.orders")).isEqualTo(32);

            assertThat(consoleErrors()).isEmpty();
            // a bad selector says why (its 400 is the one error the browser logs)
            selector.clear();
            selector.sendKeys("n >= ");
            click(By.cssSelector("#browse button"));
            await().atMost(PATIENCE).until(() -> text(By.id("browse-summary")).contains("selector"));
            assertThat(browser.findElements(By.cssSelector("tr[data-message]"))).isEmpty();
            assertThat(consoleErrors()).singleElement().asString().contains("400");
            selector.clear();
            click(By.cssSelector("#browse button"));
            await().atMost(PATIENCE).until(() -> rows() == 20);

            // purge, confirmed in the page's dialog: the backlog goes to 0, the list below is read again
            click(By.cssSelector("button[data-action='Purge']"));
            assertThat(awaitAlert().getText()).contains("Purge queue web.orders?");
            browser.switchTo().alert().accept();
            awaitText(By.id("action-result"), "purged queue web.orders: 32 messages discarded");
            awaitText(queueBacklog, "0");
            await().atMost(PATIENCE).until(() -> rows() == 0);
            awaitText(By.id("browse-summary"), "0 shown, oldest first");
            assertThat(cli.backlog("web.orders")).isZero();
            await().atMost(PATIENCE)
                    .until(
                            () -> text(By.cssSelector("dd[data-field='purged']")),
                            t -> t.startsWith("32 messages in 1 purge, the last at "));
            // a purge, not consumption: nothing was ever dequeued from web.orders, 32 were purged
            await().atMost(PATIENCE).until(() -> {
                JsonNode samples = fetchJson("/api/history").get("samples");
                double purged = 0;
                for (JsonNode sample : samples) {
                    JsonNode q = sample.get("queues").get("web.orders");
                    if (q != null) {
                        assertThat(q.get("dequeuePerSecond").asDouble()).isZero();
                        purged += q.get("purgedPerSecond").asDouble();
                    }
                }
                return purged > 0;
            });
            screenshot("purged");

            // stop enqueue, but the person changes their mind: nothing happens
            click(By.cssSelector("button[data-action='Stop enqueue']"));
            awaitAlert().dismiss();
            awaitText(By.cssSelector("dd[data-field='switches']"), "enqueue on, dequeue on");

            browser.get(url + "#/");
            awaitText(By.cssSelector("tr[data-queue='web.orders'] td[data-field='purged']"), "32");
            // a purge by the CLI counts there too
            CliRunner.send(app, "web.orders", List.of(Messages.text("late")));
            cli.run("queue", "purge", "web.orders", "--force");
            awaitText(By.cssSelector("tr[data-queue='web.orders'] td[data-field='purged']"), "33");

            browser.get(url + "#/instances");
            await().atMost(PATIENCE).until(() -> texts(By.cssSelector("tr[data-instance] td[data-field='name']"))
                    .containsAll(List.of("shop-app", "shop-worker")));
            // an application that names nothing is named after its program, its process and host, not pid@host
            try (Broker unnamed = Broker.start(db.brokerConfig().build())) {
                await().atMost(PATIENCE)
                        .until(
                                () -> text(By.cssSelector(
                                        "tr[data-instance='" + unnamed.instanceId() + "'] td[data-field='name']")),
                                t -> t.matches(
                                        ".+ \\(pid " + ProcessHandle.current().pid() + " on .+\\)"));
            }
            awaitText(
                    By.cssSelector("tr[data-instance='" + worker.instanceId() + "'] td[data-field='consumers']"), "3");
            screenshot("instances");
            browser.get(url + "#/caches");
            awaitText(By.cssSelector("tr[data-cache='web.prices'] td[data-field='entries']"), "1");
            await().atMost(PATIENCE).until(() -> text(By.id("hit-ratio-note")).contains("KvCache.stats()"));
            screenshot("caches");
            browser.get(url + "#/topic/web.events");
            awaitText(By.cssSelector("tr[data-subscription='audit'] td[data-field='lag']"), "0");
            awaitText(By.cssSelector("tr[data-subscription='billing'] td[data-field='consumers']"), "1");
            awaitText(By.cssSelector("tr[data-subscription='audit'] td[data-field='consumers']"), "0");
            awaitText(By.cssSelector("dd[data-field='consumers']"), "1 (billing on shop-worker 1)");
            // a message published from the topic's send form reaches both subscriptions
            browser.findElement(By.cssSelector("#send textarea[name=body]")).sendKeys("event 1");
            click(By.cssSelector("#send button"));
            await().atMost(PATIENCE).until(() -> text(By.id("send-result")), t -> t.endsWith(" to topic web.events"));
            awaitText(By.cssSelector("tr[data-subscription='audit'] td[data-field='lag']"), "1");
            screenshot("topic");

            // a person closing consumers sees the count follow
            workerSession.close();
            browser.get(url + "#/");
            awaitText(By.cssSelector("tr[data-queue='web.payments'] td[data-field='consumers']"), "0");

            assertThat(consoleErrors()).isEmpty();
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
            // the send form is there, off, and a forged send is refused too
            assertThat(browser.findElement(By.cssSelector("#send button")).isEnabled())
                    .isFalse();
            assertThat(browser.findElement(By.tagName("main")).getText())
                    .contains("Off: start the console with --admin to send messages.");
            Object sent = ((org.openqa.selenium.JavascriptExecutor) browser)
                    .executeAsyncScript("const done = arguments[arguments.length - 1];"
                            + "fetch('/api/queues/ro/send', {method: 'POST', body: '{\"body\": \"x\"}'})"
                            + ".then(r => r.json().then(b => done(r.status + ' ' + b.kind)));");
            assertThat(sent).isEqualTo("403 ADMIN_OFF");
            assertThat(cli.backlog("ro")).isEqualTo(1);
            // the forged requests were refused with 403s, which the browser logs as failed loads: nothing else
            assertThat(consoleErrors()).allMatch(e -> e.contains("403"));
        }
    }

    /** Rows of the message browser now. */
    private int rows() {
        return browser.findElements(By.cssSelector("tr[data-message]")).size();
    }

    /** Opens the listed message whose body preview contains {@code body} (null: the first one), in one script. */
    private void openMessage(String body) {
        await("open the message " + body)
                .atMost(PATIENCE)
                .until(() -> Boolean.TRUE.equals(script(
                        "const want = arguments[1];"
                                + " for (const row of " + ELEMENTS + ") {"
                                + "   const b = row.querySelector(\"td[data-field='body']\");"
                                + "   if (want === null || (b && b.innerText.includes(want))) {"
                                + "     const a = row.querySelector('a[data-open]'); if (a) { a.click(); return true; } } }"
                                + " return false;",
                        By.cssSelector("tr[data-message]"),
                        body)));
        await().atMost(PATIENCE)
                .until(() -> browser.findElement(By.id("message-view")).isDisplayed());
    }

    /** A GET of the console's API from the page, as JSON. */
    private JsonNode fetchJson(String path) throws Exception {
        Object body = ((org.openqa.selenium.JavascriptExecutor) browser)
                .executeAsyncScript(
                        "const done = arguments[arguments.length - 1];"
                                + "fetch(arguments[0]).then(r => r.text()).then(done);",
                        path);
        return Json.MAPPER.readTree((String) body);
    }

    /** The browser console's errors since the last call (failed loads, refused scripts, exceptions). */
    private List<String> consoleErrors() {
        return browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue())
                .map(LogEntry::getMessage)
                .toList();
    }

    /**
     * The page redraws its live part each refresh (300 ms here): an element found in one round trip
     * to the driver may be replaced before the click in the next, every time on a busy machine. So
     * the element is found and clicked in one script.
     */
    private void click(By by) {
        await("click on " + by)
                .atMost(PATIENCE)
                .until(() -> Boolean.TRUE.equals(script(
                        // clicked just after the script returns: a click that opens a dialog (confirm)
                        // would otherwise hold the script, and the driver fails it
                        "const e = " + ELEMENTS + "[0]; if (!e) return false; setTimeout(() => e.click(), 0);"
                                + " return true;",
                        by)));
    }

    /** The page's dialog (a confirm) once it is open. */
    private org.openqa.selenium.Alert awaitAlert() {
        return await("a dialog")
                .atMost(PATIENCE)
                .ignoreException(org.openqa.selenium.NoAlertPresentException.class)
                .until(() -> browser.switchTo().alert(), a -> a != null);
    }

    /** Waits until the element shows {@code expected}; a timeout says what it showed last. */
    private void awaitText(By by, String expected) {
        await("text of " + by).atMost(PATIENCE).until(() -> text(by), org.hamcrest.Matchers.equalTo(expected));
    }

    /** The element's visible text, or "" while it is not (yet) on the page. */
    private String text(By by) {
        List<String> all = texts(by);
        return all.isEmpty() ? "" : all.get(0);
    }

    /**
     * The visible texts ({@code innerText}, as CSS renders them) of the elements {@code by} finds,
     * read in one script: the page redraws its tables at every refresh (300 ms here), and on a busy
     * machine finding the elements and then reading each one's text in separate round trips to the
     * driver met a redrawn (stale) table every time.
     */
    @SuppressWarnings("unchecked")
    private List<String> texts(By by) {
        Object result = script("return " + ELEMENTS + ".map(e => e.innerText);", by);
        return ((List<Object>) result)
                .stream().map(o -> o == null ? "" : o.toString().strip()).toList();
    }

    /** A script's expression for the elements {@code arguments[0]} (an XPath) finds, as an array. */
    private static final String ELEMENTS = "(() => { const r = document.evaluate(arguments[0], document, null,"
            + " XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null); const out = [];"
            + " for (let i = 0; i < r.snapshotLength; i++) out.push(r.snapshotItem(i)); return out; })()";

    /** Runs {@code script} with {@code by}'s elements as {@link #ELEMENTS}, in one round trip. */
    private Object script(String script, By by, Object... more) {
        String locator = by.toString();
        String xpath;
        if (locator.startsWith("By.xpath: ")) {
            xpath = locator.substring("By.xpath: ".length());
        } else if (locator.startsWith("By.linkText: ")) {
            xpath = "//a[normalize-space(.)='" + locator.substring("By.linkText: ".length()) + "']";
        } else if (locator.startsWith("By.id: ")) {
            xpath = "//*[@id='" + locator.substring("By.id: ".length()) + "']";
        } else if (locator.startsWith("By.cssSelector: ")) {
            // a CSS selector: the same array from querySelectorAll
            return ((org.openqa.selenium.JavascriptExecutor) browser)
                    .executeScript(
                            script.replace(ELEMENTS, "Array.from(document.querySelectorAll(arguments[0]))"),
                            args(locator.substring("By.cssSelector: ".length()), more));
        } else {
            throw new IllegalArgumentException("the test reads xpath, css, id and link locators, not " + locator);
        }
        return ((org.openqa.selenium.JavascriptExecutor) browser).executeScript(script, args(xpath, more));
    }

    private static Object[] args(String first, Object... more) {
        Object[] all = new Object[more.length + 1];
        all[0] = first;
        System.arraycopy(more, 0, all, 1, more.length);
        return all;
    }

    private void screenshot(String page) throws IOException {
        Path dir = Files.createDirectories(Path.of("target", "console-screenshots"));
        byte[] png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES);
        Files.write(dir.resolve("console-" + page + ".png"), png);
    }
}

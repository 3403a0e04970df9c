package io.shardq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.shardq.broker.Broker;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The console's JSON API against a real database: the shapes of --json, browse, admin actions and refusals. */
@PgTest
class ConsoleApiTest {
    @TempDir
    Path tmp;

    private final HttpClient http = HttpClient.newHttpClient();

    record Answer(int status, JsonNode json, String body) {}

    static ConsoleServer console(Broker broker, boolean admin) throws IOException {
        return ConsoleServer.start(
                broker, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), admin, 200, 60_000);
    }

    Answer get(ConsoleServer c, String path) throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + c.port() + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        return answer(r);
    }

    Answer post(ConsoleServer c, String path, String token) throws Exception {
        return post(c, path, token, null);
    }

    Answer post(ConsoleServer c, String path, String token, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + c.port() + path))
                .POST(body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            b.header(ConsoleServer.TOKEN_HEADER, token);
        }
        return answer(http.send(b.build(), HttpResponse.BodyHandlers.ofString()));
    }

    private static Answer answer(HttpResponse<String> r) throws IOException {
        String type = r.headers().firstValue("Content-Type").orElse("");
        return new Answer(
                r.statusCode(), type.startsWith("application/json") ? Json.MAPPER.readTree(r.body()) : null, r.body());
    }

    @Test
    void lists_haveTheShapesOfTheCliJson(TestDatabase db) throws Exception {
        CliRunner cli = new CliRunner(db, tmp);
        cli.run("queue", "create", "orders", "--shards", "2");
        cli.run("topic", "create", "events");
        cli.run("subscription", "add", "events", "billing");
        cli.run("cache", "create", "prices");
        cli.run("cache", "put", "prices", "item-1", "3.50");
        try (Broker app = cli.broker("app");
                ConsoleServer c = console(app, false)) {
            CliRunner.send(
                    app,
                    "orders",
                    IntStream.range(0, 7).mapToObj(i -> Messages.text("o" + i)).toList());
            publish(app, "events", 3);
            c.refreshForTest();

            // the methods of a class share a database: each looks at its own names
            assertThat(named(get(c, "/api/queues").json(), "orders"))
                    .isEqualTo(named(cli.run("queue", "list", "--json").json(), "orders"));
            assertThat(named(get(c, "/api/topics").json(), "events"))
                    .isEqualTo(named(cli.run("topic", "list", "--json").json(), "events"));
            assertThat(named(get(c, "/api/caches").json(), "prices"))
                    .isEqualTo(named(cli.run("cache", "list", "--json").json(), "prices"));
            assertThat(get(c, "/api/caches/prices").json())
                    .isEqualTo(cli.run("cache", "stats", "prices", "--json").json());

            JsonNode stats = get(c, "/api/queues/orders").json();
            JsonNode cliStats = cli.run("queue", "stats", "orders", "--json").json();
            assertThat(fieldNames(stats)).containsAll(fieldNames(cliStats));
            assertThat(stats.get("backlog").asLong())
                    .isEqualTo(7)
                    .isEqualTo(cliStats.get("backlog").asLong());
            assertThat(stats.get("shards")).hasSize(2);
            assertThat(fieldNames(stats.get("shards").get(0)))
                    .isEqualTo(fieldNames(cliStats.get("shards").get(0)));

            JsonNode topic = get(c, "/api/topics/events").json();
            JsonNode cliTopic = cli.run("topic", "stats", "events", "--json").json();
            assertThat(fieldNames(topic)).containsAll(fieldNames(cliTopic));
            assertThat(topic.get("published").asLong()).isEqualTo(3);
            JsonNode subs = get(c, "/api/topics/events/subscriptions").json();
            JsonNode cliSubs =
                    cli.run("subscription", "list", "events", "--json").json();
            assertThat(fieldNames(subs)).isEqualTo(fieldNames(cliSubs));
            assertThat(subs.get("subscriptions").get(0).get("name").asText()).isEqualTo("billing");
            assertThat(subs.get("subscriptions").get(0).get("lag").asLong()).isEqualTo(3);
            assertThat(fieldNames(subs.get("subscriptions").get(0)))
                    .isEqualTo(fieldNames(cliSubs.get("subscriptions").get(0)));

            JsonNode instances = get(c, "/api/instances").json();
            JsonNode cliInstances = cli.run("status", "--json").json().get("instances");
            assertThat(names(instances)).contains("app");
            assertThat(fieldNames(instances.get(0))).containsAll(fieldNames(cliInstances.get(0)));

            JsonNode overview = get(c, "/api/overview").json();
            assertThat(overview.get("console").get("admin").asBoolean()).isFalse();
            assertThat(names(overview.get("queues"))).contains("orders");
            assertThat(names(overview.get("topics"))).contains("events");
            assertThat(names(overview.get("caches"))).contains("prices");
            for (JsonNode cache : overview.get("caches")) {
                assertThat(cache.get("hitRatio").isNull()).isTrue();
                assertThat(cache.get("perInstanceCounters").asText()).contains("KvCache.stats()");
            }
        }
    }

    @Test
    void stats_followTheMessages_andTheHistoryHasRates(TestDatabase db) throws Exception {
        CliRunner cli = new CliRunner(db, tmp);
        cli.run("queue", "create", "flow");
        try (Broker app = cli.broker("app");
                ConsoleServer c = console(app, false)) {
            assertThat(get(c, "/api/queues/flow").json().get("backlog").asLong())
                    .isZero();
            CliRunner.send(
                    app,
                    "flow",
                    IntStream.range(0, 50).mapToObj(i -> Messages.text("m" + i)).toList());
            await().atMost(Duration.ofSeconds(20))
                    .until(() ->
                            get(c, "/api/queues/flow").json().get("backlog").asLong() == 50);
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                for (JsonNode s : get(c, "/api/history").json().get("samples")) {
                    if (s.get("queues").get("flow").get("enqueuePerSecond").asDouble() > 0) {
                        return true;
                    }
                }
                return false;
            });
            assertThat(get(c, "/api/queues/flow").json().get("enqueued").asLong())
                    .isEqualTo(50);
        }
    }

    @Test
    void browse_takesASelector_andBadInputGetsTheCliMessage(TestDatabase db) throws Exception {
        CliRunner cli = new CliRunner(db, tmp);
        cli.run("queue", "create", "browse-q", "--shards", "1");
        try (Broker app = cli.broker("app");
                ConsoleServer c = console(app, false)) {
            CliRunner.send(
                    app,
                    "browse-q",
                    IntStream.range(0, 10)
                            .mapToObj(i -> Messages.text("m" + i, Map.of("region", i % 2 == 0 ? "eu" : "us")))
                            .toList());
            Answer eu = get(c, "/api/queues/browse-q/messages?selector=" + encode("region = 'eu'") + "&limit=3");
            assertThat(eu.status()).isEqualTo(200);
            assertThat(eu.json())
                    .isEqualTo(cli.run(
                                    "queue",
                                    "browse",
                                    "browse-q",
                                    "--selector",
                                    "region = 'eu'",
                                    "--limit",
                                    "3",
                                    "--json")
                            .json());
            assertThat(eu.json()).hasSize(3);
            for (JsonNode m : eu.json()) {
                assertThat(m.get("message")
                                .get("properties")
                                .get("region")
                                .get("value")
                                .asText())
                        .isEqualTo("eu");
            }
            assertThat(get(c, "/api/queues/browse-q/messages").json()).hasSize(10);

            Answer bad = get(c, "/api/queues/browse-q/messages?selector=" + encode("region = "));
            assertThat(bad.status()).isEqualTo(400);
            assertThat(bad.json().get("kind").asText()).isEqualTo("INVALID_SELECTOR");
            String cliError = cli.run("queue", "browse", "browse-q", "--selector", "region = ")
                    .err();
            assertThat("shardq: " + bad.json().get("error").asText() + "\n").isEqualTo(cliError);

            Answer unknown = get(c, "/api/queues/nope");
            assertThat(unknown.status()).isEqualTo(404);
            assertThat(unknown.json().get("error").asText())
                    .isEqualTo("queue \"nope\" does not exist (shardq queue list shows the queues)");
            assertThat(get(c, "/api/queues/nope/messages").status()).isEqualTo(404);
            assertThat(get(c, "/api/topics/nope").status()).isEqualTo(404);
            assertThat(get(c, "/api/caches/nope").status()).isEqualTo(404);
            Answer badName = get(c, "/api/queues/" + encode("a;b"));
            assertThat(badName.status()).isEqualTo(400);
            assertThat(badName.json().get("error").asText()).contains("a;b");
            Answer badLimit = get(c, "/api/queues/browse-q/messages?limit=0");
            assertThat(badLimit.status()).isEqualTo(400);
            assertThat(badLimit.json().get("error").asText()).isEqualTo("limit \"0\" is invalid: expected 1 to 500");
            assertThat(get(c, "/api/nothing").status()).isEqualTo(404);
        }
    }

    @Test
    void adminActions_areRefusedWithoutAdmin(TestDatabase db) throws Exception {
        CliRunner cli = new CliRunner(db, tmp);
        cli.run("queue", "create", "keep");
        try (Broker app = cli.broker("app");
                ConsoleServer c = console(app, false)) {
            CliRunner.send(app, "keep", java.util.List.of(Messages.text("x")));
            Answer r = post(c, "/api/queues/keep/purge", c.token());
            assertThat(r.status()).isEqualTo(403);
            assertThat(r.json().get("kind").asText()).isEqualTo("ADMIN_OFF");
            assertThat(r.json().get("error").asText()).contains("start the console with --admin");
            assertThat(cli.backlog("keep")).isEqualTo(1);
            assertThat(get(c, "/").body()).doesNotContain(c.token());
        }
    }

    @Test
    void adminActions_withAdminAndToken_takeEffect_andWithoutTheTokenAreRefused(TestDatabase db) throws Exception {
        CliRunner cli = new CliRunner(db, tmp);
        cli.run("queue", "create", "work", "--shards", "1", "--max-attempts", "1");
        try (Broker app = cli.broker("app");
                ConsoleServer c = console(app, true)) {
            // two letters die: received, rolled back, dead-lettered on the next receive (max attempts 1)
            CliRunner.send(app, "work", java.util.List.of(Messages.text("dead-1"), Messages.text("dead-2")));
            try (BrokerSession s = app.openSession(BrokerSession.Mode.TRANSACTED)) {
                assertThat(s.receive("work", 5000, false)).isNotNull();
                assertThat(s.receive("work", 5000, false)).isNotNull();
                s.rollback();
                assertThat(s.receive("work", 500, false)).isNull();
                s.commit();
            }
            assertThat(cli.backlog("work.DLQ")).isEqualTo(2);
            CliRunner.send(
                    app,
                    "work",
                    IntStream.range(0, 3).mapToObj(i -> Messages.text("w" + i)).toList());
            String page = get(c, "/").body();
            assertThat(page).contains("<meta name=\"shardq-token\" content=\"" + c.token() + "\">");

            Answer noToken = post(c, "/api/queues/work/purge", null);
            assertThat(noToken.status()).isEqualTo(403);
            assertThat(noToken.json().get("kind").asText()).isEqualTo("BAD_TOKEN");
            Answer wrong = post(c, "/api/queues/work/purge", "guess");
            assertThat(wrong.status()).isEqualTo(403);
            assertThat(cli.backlog("work")).isEqualTo(3);

            Answer stop = post(c, "/api/queues/work/stop?which=enqueue", c.token());
            assertThat(stop.status()).isEqualTo(200);
            assertThat(stop.json().get("message").asText()).isEqualTo("queue work: enqueue off, dequeue on");
            assertThat(get(c, "/api/queues/work").json().get("enqueueEnabled").asBoolean())
                    .isFalse(); // the action waited for a fresh round
            assertThat(named(cli.run("queue", "list", "--json").json(), "work")
                            .get("enqueueEnabled")
                            .asBoolean())
                    .isFalse();
            assertThat(post(c, "/api/queues/work/start?which=sideways", c.token())
                            .status())
                    .isEqualTo(400);
            assertThat(post(c, "/api/queues/work/start?which=both", c.token())
                            .json()
                            .get("message")
                            .asText())
                    .isEqualTo("queue work: enqueue on, dequeue on");

            Answer requeue = post(c, "/api/queues/work/requeue", c.token());
            assertThat(requeue.status()).as(requeue.body()).isEqualTo(200);
            assertThat(requeue.json().get("requeued").asLong()).isEqualTo(2);
            assertThat(requeue.json().get("message").asText())
                    .isEqualTo("requeued 2 messages from work.DLQ to work; work.DLQ is empty");
            assertThat(cli.backlog("work")).isEqualTo(5);
            assertThat(cli.backlog("work.DLQ")).isZero();

            Answer purge = post(c, "/api/queues/work/purge", c.token());
            assertThat(purge.status()).isEqualTo(200);
            assertThat(purge.json().get("purged").asLong()).isEqualTo(5);
            assertThat(cli.backlog("work")).isZero();
            assertThat(get(c, "/api/queues/work").json().get("backlog").asLong())
                    .isZero();

            Answer unknown = post(c, "/api/queues/nope/purge", c.token());
            assertThat(unknown.status()).isEqualTo(404);
            assertThat(unknown.json().get("error").asText()).contains("queue \"nope\" does not exist");
        }
    }

    @Test
    void send_takesOneMessageInQueueLoadsFormat_andRefusesBadOnesSayingWhy(TestDatabase db) throws Exception {
        CliRunner cli = new CliRunner(db, tmp);
        cli.run("queue", "create", "inbox", "--shards", "1");
        cli.run("topic", "create", "news");
        cli.run("subscription", "add", "news", "reader");
        try (Broker app = cli.broker("app");
                ConsoleServer c = console(app, true)) {
            Answer sent = post(
                    c,
                    "/api/queues/inbox/send",
                    c.token(),
                    "{\"body\": \"hi\", \"correlationId\": \"c-1\", \"priority\": 7,"
                            + " \"properties\": {\"n\": {\"type\": \"int\", \"value\": 5}}}");
            assertThat(sent.status()).as(sent.body()).isEqualTo(200);
            String id = sent.json().get("messageId").asText();
            assertThat(sent.json().get("message").asText()).isEqualTo("sent " + id + " to queue inbox");
            JsonNode browsed = get(c, "/api/queues/inbox/messages").json();
            assertThat(browsed).hasSize(1);
            JsonNode m = browsed.get(0).get("message");
            assertThat(m.get("messageId").asText()).isEqualTo(id);
            assertThat(m.get("body").asText()).isEqualTo("hi");
            assertThat(m.get("correlationId").asText()).isEqualTo("c-1");
            assertThat(m.get("priority").asInt()).isEqualTo(7);
            assertThat(m.get("timestamp").asLong()).isPositive(); // the time of sending
            assertThat(m.get("properties").get("n").get("type").asText()).isEqualTo("int");
            assertThat(get(c, "/api/queues/inbox").json().get("backlog").asLong())
                    .isEqualTo(1); // the action waited for a fresh round

            Answer published = post(c, "/api/topics/news/send", c.token(), "{\"body\": \"extra\"}");
            assertThat(published.status()).as(published.body()).isEqualTo(200);
            assertThat(cli.run("subscription", "list", "news", "--json")
                            .json()
                            .get("subscriptions")
                            .get(0)
                            .get("lag")
                            .asLong())
                    .isEqualTo(1);

            Answer notJson = post(c, "/api/queues/inbox/send", c.token(), "{body: hi}");
            assertThat(notJson.status()).isEqualTo(400);
            assertThat(notJson.json().get("error").asText()).startsWith("the message is invalid: ");
            Answer badField = post(c, "/api/queues/inbox/send", c.token(), "{\"priority\": 12}");
            assertThat(badField.status()).isEqualTo(400);
            assertThat(badField.json().get("error").asText())
                    .isEqualTo("the message is invalid: \"priority\" is 12: expected 0 to 9");
            Answer empty = post(c, "/api/queues/inbox/send", c.token(), "");
            assertThat(empty.status()).isEqualTo(400);
            Answer tooLarge = post(
                    c,
                    "/api/queues/inbox/send",
                    c.token(),
                    "{\"body\": \"" + "x".repeat(ConsoleServer.MAX_SEND_BYTES) + "\"}");
            assertThat(tooLarge.status()).isEqualTo(413);
            assertThat(tooLarge.json().get("error").asText()).contains("shardq queue load");
            assertThat(post(c, "/api/queues/inbox/send", null, "{\"body\": \"x\"}")
                            .status())
                    .isEqualTo(403);
            assertThat(post(c, "/api/topics/nope/send", c.token(), "{\"body\": \"x\"}")
                            .status())
                    .isEqualTo(404);
            assertThat(cli.backlog("inbox")).isEqualTo(1);
        }
    }

    @Test
    void browse_cutsLargeBodies_andSaysTheirSize(TestDatabase db) throws Exception {
        CliRunner cli = new CliRunner(db, tmp);
        cli.run("queue", "create", "big", "--shards", "1");
        try (Broker app = cli.broker("app");
                ConsoleServer c = console(app, false)) {
            String text = "é".repeat(40_000); // 80,000 bytes of UTF-8
            byte[] bytes = new byte[70_000];
            java.util.Arrays.fill(bytes, (byte) 7);
            CliRunner.send(
                    app,
                    "big",
                    java.util.List.of(
                            Messages.text(text),
                            Messages.text("small"),
                            new io.shardq.broker.message.BrokerMessage(
                                    "ID:bytes-1",
                                    io.shardq.broker.message.BrokerMessage.BodyType.BYTES,
                                    1,
                                    null,
                                    null,
                                    null,
                                    4,
                                    0,
                                    0,
                                    true,
                                    Map.of(),
                                    bytes)));
            JsonNode list = get(c, "/api/queues/big/messages").json();
            JsonNode cutText = list.get(0).get("message");
            assertThat(cutText.get("bodyTruncated").asBoolean()).isTrue();
            assertThat(cutText.get("bodyBytes").asLong()).isEqualTo(80_000);
            assertThat(cutText.get("body").asText()).isEqualTo("é".repeat(ConsoleServer.BODY_VIEW_LIMIT / 2));
            JsonNode small = list.get(1).get("message");
            assertThat(small.has("bodyTruncated")).isFalse();
            assertThat(small.has("bodyBytes")).isFalse();
            JsonNode cutBytes = list.get(2).get("message");
            assertThat(cutBytes.get("bodyBytes").asLong()).isEqualTo(70_000);
            assertThat(java.util.Base64.getDecoder().decode(cutBytes.get("body").asText()).length)
                    .isEqualTo(ConsoleServer.BODY_VIEW_LIMIT);
        }
    }

    @Test
    void consumersAndPurges_comeFromTheDatabase(TestDatabase db) throws Exception {
        CliRunner cli = new CliRunner(db, tmp);
        cli.run("queue", "create", "counted", "--shards", "2");
        try (Broker app = cli.broker("app");
                Broker other = cli.broker("other-app");
                BrokerSession s = other.openSession(BrokerSession.Mode.TRANSACTED);
                ConsoleServer c = console(app, false)) {
            s.createConsumer("counted", null);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> get(c, "/api/queues/counted")
                                    .json()
                                    .get("consumers")
                                    .asLong()
                            == 1);
            JsonNode by = get(c, "/api/queues/counted").json().get("consumersByInstance");
            assertThat(by).hasSize(1);
            assertThat(by.get(0).get("instanceName").asText()).isEqualTo("other-app");
            assertThat(by.get(0).get("instanceId").asLong()).isEqualTo(other.instanceId());
            JsonNode instances = get(c, "/api/instances").json();
            for (JsonNode i : instances) {
                if (i.get("id").asLong() == other.instanceId()) {
                    assertThat(i.get("consumers").asLong()).isEqualTo(1);
                }
            }

            CliRunner.send(app, "counted", java.util.List.of(Messages.text("a"), Messages.text("b")));
            cli.run("queue", "purge", "counted", "--force");
            c.refreshForTest();
            JsonNode stats = get(c, "/api/queues/counted").json();
            assertThat(stats.get("purged").asLong()).isEqualTo(2);
            assertThat(stats.get("purges").asLong()).isEqualTo(1);
            assertThat(stats.get("lastPurgeAt").asLong()).isPositive();
        }
    }

    @Test
    void requestsForAnotherHost_areRefused(TestDatabase db) throws Exception {
        try (Broker app = Broker.start(db.brokerConfig().build());
                ConsoleServer c = console(app, true)) {
            assertThat(rawStatus(c, "GET /api/queues", "127.0.0.1:" + c.port())).isEqualTo(200);
            assertThat(rawStatus(c, "GET /api/queues", "localhost:" + c.port())).isEqualTo(200);
            // a page of evil.example whose name was rebound to 127.0.0.1
            assertThat(rawStatus(c, "GET /", "evil.example:" + c.port())).isEqualTo(403);
            assertThat(rawStatus(c, "GET /api/queues", "evil.example")).isEqualTo(403);
        }
    }

    private static int rawStatus(ConsoleServer c, String requestLine, String host) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), c.port())) {
            OutputStream out = s.getOutputStream();
            out.write((requestLine + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String status =
                    new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII)).readLine();
            return Integer.parseInt(status.split(" ")[1]);
        }
    }

    private static void publish(Broker app, String topic, int n) {
        try (BrokerSession s = app.openSession(BrokerSession.Mode.TRANSACTED)) {
            for (int i = 0; i < n; i++) {
                s.send(topic, Messages.text("e" + i));
            }
            s.commit();
        }
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static java.util.List<String> fieldNames(JsonNode o) {
        java.util.List<String> names = new java.util.ArrayList<>();
        o.fieldNames().forEachRemaining(names::add);
        return names;
    }

    /** The element of a --json list with this name (fails when there is none). */
    private static JsonNode named(JsonNode array, String name) {
        for (JsonNode n : array) {
            if (n.get("name").asText().equals(name)) {
                return n;
            }
        }
        throw new AssertionError("no " + name + " in " + array);
    }

    private static java.util.List<String> names(JsonNode array) {
        java.util.List<String> names = new java.util.ArrayList<>();
        array.forEach(n -> names.add(n.get("name").asText()));
        return names;
    }
}

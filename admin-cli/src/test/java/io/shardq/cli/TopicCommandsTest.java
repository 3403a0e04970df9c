package io.shardq.cli;

import static io.shardq.cli.CliRunner.assertOneLineError;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.shardq.broker.Broker;
import io.shardq.broker.SubscriptionSpec;
import io.shardq.broker.SubscriptionSpec.Kind;
import io.shardq.broker.shard.BrokerConsumer;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** topic create, alter, drop, list, stats and subscription add, remove, list: output, errors, rows. */
@PgTest
class TopicCommandsTest {
    @TempDir
    Path tmp;

    CliRunner cli;

    @BeforeEach
    void setUp(TestDatabase db) {
        this.cli = new CliRunner(db, tmp);
    }

    static SubscriptionSpec shared(String name) {
        return new SubscriptionSpec(Kind.SHARED_DURABLE, name, null, null, false, "c");
    }

    /** Publishes {@code n} text messages in one transaction. */
    static void publish(Broker broker, String topic, int n) {
        try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            for (int i = 0; i < n; i++) {
                s.send(topic, Messages.text("m" + i));
            }
            s.commit();
        }
    }

    /** Consumes what subscription {@code name} has, until a receive finds nothing. */
    static int consume(Broker broker, String topic, String name) {
        int n = 0;
        try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            BrokerConsumer c = s.subscribe(topic, shared(name));
            while (c.receive(500, false) != null) {
                n++;
            }
            s.commit();
        }
        return n;
    }

    @Test
    void create_makesATopic_listShowsIt_andQueueListDoesNot() {
        CliRunner.Run r = cli.run("topic", "create", "prices", "--shards", "2", "--slice-size", "64");

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out())
                .isEqualTo("created topic prices: 2 shards, slices of 64 messages, 5 delivery attempts,"
                        + " dead letters to prices.DLQ, enqueue on, dequeue on, backlogs never expire\n");
        assertThat(cli.queryLong("select count(*) from shardq.destination where name = 'prices' and kind = 'topic'"
                        + " and shard_count = 2 and slice_size = 64"))
                .isEqualTo(1);

        CliRunner.Run list = cli.run("topic", "list");
        assertThat(list.exit()).as(list.err()).isZero();
        assertThat(list.out())
                .startsWith("TOPIC")
                .containsPattern("prices\\s+2\\s+64\\s+5\\s+prices\\.DLQ\\s+-\\s+-\\s+0\\s+-\\s+0\n");
        JsonNode json = named(cli.run("topic", "list", "--json").json(), "prices");
        assertThat(json.get("shards").asInt()).isEqualTo(2);
        assertThat(json.get("maxLag").isNull()).isTrue();
        assertThat(json.get("subscriptions").asLong()).isZero();
        assertThat(json.get("temporary").asBoolean()).isFalse();

        assertThat(cli.run("queue", "list").out()).doesNotContain("prices");
        cli.run("queue", "create", "orders");
        assertThat(cli.run("topic", "list").out()).doesNotContain("orders");
    }

    @Test
    void list_marksTemporaryTopics_withTheirOwner() {
        try (Broker owner = cli.broker("test-owner")) {
            String name = owner.temporaries()
                    .create("topic", java.util.UUID.randomUUID())
                    .name();

            CliRunner.Run list = cli.run("topic", "list");
            assertThat(list.exit()).as(list.err()).isZero();
            assertThat(list.out())
                    .containsPattern(java.util.regex.Pattern.quote(name) + "\\s+1\\s+.*\\s+instance "
                            + owner.instanceId() + "\\s+0\n");
            JsonNode t = named(cli.run("topic", "list", "--json").json(), name);
            assertThat(t.get("temporary").asBoolean()).isTrue();
            assertThat(t.get("ownerInstance").asLong()).isEqualTo(owner.instanceId());
            assertThat(t.get("ownerAlive").asBoolean()).isTrue();
            assertThat(cli.run("queue", "list").out()).doesNotContain(name);
        }
    }

    @Test
    void create_twice_saysItExists_unlessIfNotExists() {
        cli.run("topic", "create", "twice", "--shards", "1");
        CliRunner.Run again = cli.run("topic", "create", "twice");
        assertOneLineError(again);
        assertThat(again.exit()).isEqualTo(2);
        assertThat(again.err()).isEqualTo("shardq: topic \"twice\" already exists\n");

        CliRunner.Run ok = cli.run("topic", "create", "twice", "--shards", "8", "--if-not-exists");
        assertThat(ok.exit()).as(ok.err()).isZero();
        assertThat(ok.out()).startsWith("topic twice exists already: 1 shard,");

        cli.run("queue", "create", "aqueue");
        CliRunner.Run clash = cli.run("topic", "create", "aqueue", "--if-not-exists");
        assertOneLineError(clash);
        assertThat(clash.err()).isEqualTo("shardq: queue \"aqueue\" already exists\n");
    }

    @Test
    void commands_nameAnUnknownTopic_andRefuseAQueue() {
        cli.run("queue", "create", "orders");
        for (String[] cmd : List.of(
                new String[] {"topic", "stats", "%s"},
                new String[] {"topic", "alter", "%s", "--max-lag", "10"},
                new String[] {"topic", "drop", "%s"},
                new String[] {"subscription", "add", "%s", "audit"},
                new String[] {"subscription", "remove", "%s", "audit"},
                new String[] {"subscription", "list", "%s"})) {
            String line = String.join(" ", cmd);
            CliRunner.Run unknown = cli.run(fill(cmd, "typo"));
            assertOneLineError(unknown);
            assertThat(unknown.exit()).as(line).isEqualTo(2);
            assertThat(unknown.err())
                    .as(line)
                    .isEqualTo("shardq: topic \"typo\" does not exist (shardq topic list shows the topics)\n");

            CliRunner.Run queue = cli.run(fill(cmd, "orders"));
            assertOneLineError(queue);
            assertThat(queue.exit()).as(line).isEqualTo(2);
            assertThat(queue.err())
                    .as(line)
                    .isEqualTo("shardq: \"orders\" is a queue, not a topic (shardq queue ... administers it)\n");
        }
        assertThat(cli.queryLong("select count(*) from shardq.destination where name = 'typo'"))
                .isZero();
        // and the other way round
        cli.run("topic", "create", "quotes");
        CliRunner.Run stats = cli.run("queue", "stats", "quotes");
        assertOneLineError(stats);
        assertThat(stats.err()).isEqualTo("shardq: \"quotes\" is a topic, not a queue\n");
    }

    private static String[] fill(String[] cmd, String name) {
        return java.util.Arrays.stream(cmd).map(a -> a.replace("%s", name)).toArray(String[]::new);
    }

    @Test
    void alter_setsAndClearsTheExpiryPolicy() {
        cli.run("topic", "create", "policy", "--shards", "2");
        CliRunner.Run r = cli.run("topic", "alter", "policy", "--max-lag", "10000", "--max-age", "2h", "--shards", "3");

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out())
                .startsWith("altered topic policy: 3 shards,")
                .contains(", backlogs expire beyond 10,000 messages or 2 h old\n")
                .contains("shardq subscription list policy shows what each lost (EXPIRED)");
        assertThat(cli.queryLong("select count(*) from shardq.destination where name = 'policy' and max_lag = 10000"
                        + " and max_age_seconds = 7200 and shard_count = 3"))
                .isEqualTo(1);
        JsonNode t = named(cli.run("topic", "list", "--json").json(), "policy");
        assertThat(t.get("maxLag").asLong()).isEqualTo(10000);
        assertThat(t.get("maxAgeSeconds").asLong()).isEqualTo(7200);

        assertThat(cli.run("topic", "list").out()).containsPattern("policy\\s.*\\s10,000\\s+2 h\\s");
        assertThat(cli.run("topic", "alter", "policy", "--max-age", "7d").out())
                .contains("backlogs expire beyond 10,000 messages or 7 d old");
        assertThat(cli.queryLong("select max_age_seconds from shardq.destination where name = 'policy'"))
                .isEqualTo(7 * 86_400);
        assertThat(cli.run("topic", "alter", "policy", "--max-age", "90").out())
                .contains("backlogs expire beyond 10,000 messages or 1 min 30 s old");
        assertThat(cli.run("topic", "alter", "policy", "--max-lag", "0").out())
                .endsWith("backlogs expire beyond 1 min 30 s old\n"
                        + "subscriptions beyond the limit lose their backlog within a heartbeat of the maintenance"
                        + " leader; shardq subscription list policy shows what each lost (EXPIRED)\n");
        assertThat(cli.run("topic", "alter", "policy", "--max-age", "0").out())
                .isEqualTo("altered topic policy: 3 shards, slices of 20,000 messages, 5 delivery attempts,"
                        + " dead letters to policy.DLQ, enqueue on, dequeue on, backlogs never expire\n");
        assertThat(cli.run("topic", "alter", "policy", "--max-age", "0").out()).startsWith("topic policy unchanged: ");
        // the delivery policy, as for queues
        assertThat(cli.run("topic", "alter", "policy", "--redelivery-delay", "2s", "--expiry-queue", "policy.old")
                        .out())
                .contains(
                        ", dead letters to policy.DLQ, expired messages to policy.old, redelivery after 2 s, enqueue on");
        assertThat(cli.queryLong("select redelivery_delay_ms from shardq.destination where name = 'policy'"))
                .isEqualTo(2_000);
    }

    @Test
    void alter_refusesBadValues_andNothingToChange() {
        cli.run("topic", "create", "bad", "--shards", "2");
        CliRunner.Run nothing = cli.run("topic", "alter", "bad");
        assertOneLineError(nothing);
        assertThat(nothing.exit()).isEqualTo(2);
        assertThat(nothing.err()).contains("nothing to change").contains("--max-lag, --max-age, --expiry-queue");

        CliRunner.Run age = cli.run("topic", "alter", "bad", "--max-age", "soon");
        assertOneLineError(age);
        assertThat(age.exit()).isEqualTo(2);
        assertThat(age.err()).contains("'soon' is not a duration: expected seconds, or a number with s, m, h or d");

        CliRunner.Run lag = cli.run("topic", "alter", "bad", "--max-lag", "-1");
        assertOneLineError(lag);
        assertThat(lag.exit()).isEqualTo(2);
        assertThat(lag.err()).contains("--max-lag -1 is invalid: expected 0 (no limit) or more messages");

        CliRunner.Run fewer = cli.run("topic", "alter", "bad", "--shards", "1");
        assertThat(fewer.exit()).as(fewer.err()).isZero();
        assertThat(fewer.out()).startsWith("altered topic bad: 2 shards (shrinking to 1: shard 1 is draining)");
    }

    @Test
    void subscriptionAdd_list_remove() {
        cli.run("topic", "create", "news", "--shards", "2");
        CliRunner.Run all = cli.run("subscription", "add", "news", "archive");
        assertThat(all.exit()).as(all.err()).isZero();
        assertThat(all.out())
                .isEqualTo("added subscription archive to topic news: it keeps every message published from now on\n");
        CliRunner.Run eu = cli.run("subscription", "add", "news", "eu", "--selector", "region = 'EU'");
        assertThat(eu.exit()).as(eu.err()).isZero();
        assertThat(eu.out())
                .isEqualTo("added subscription eu to topic news: it keeps the messages matching region = 'EU'"
                        + " published from now on\n");

        CliRunner.Run list = cli.run("subscription", "list", "news");
        assertThat(list.exit()).as(list.err()).isZero();
        assertThat(list.out())
                .startsWith("SUBSCRIPTION  CLIENT ID  KIND            SELECTOR       CONSUMERS  LAG  OLDEST  RETIREMENT"
                        + "  EXPIRED\n")
                .containsPattern("archive\\s+-\\s+shared durable\\s+-\\s+0\\s+0\\s+-\\s+-\\s+-\n")
                .containsPattern("eu\\s+-\\s+shared durable\\s+region = 'EU'\\s+0\\s+0\\s+-\\s+-\\s+-\n");
        JsonNode json = cli.run("subscription", "list", "news", "--json").json();
        assertThat(json.get("topic").asText()).isEqualTo("news");
        assertThat(json.get("subscriptions")).hasSize(2);
        JsonNode e = json.get("subscriptions").get(1);
        assertThat(e.get("name").asText()).isEqualTo("eu");
        assertThat(e.get("selector").asText()).isEqualTo("region = 'EU'");
        assertThat(e.get("kind").asText()).isEqualTo("shared durable");
        assertThat(e.get("holdsRetirement").asBoolean()).isFalse();
        assertThat(e.get("clientId").isNull()).isTrue();
        assertThat(cli.run("topic", "list").out()).containsPattern("news\\s.*\\s2\\s+-\\s+0\n");

        CliRunner.Run removed = cli.run("subscription", "remove", "news", "eu");
        assertThat(removed.exit()).as(removed.err()).isZero();
        assertThat(removed.out()).isEqualTo("removed subscription eu from topic news\n");
        assertThat(cli.queryLong("select count(*) from shardq.subscription where name = 'eu'"))
                .isZero();

        CliRunner.Run again = cli.run("subscription", "remove", "news", "eu");
        assertOneLineError(again);
        assertThat(again.exit()).isEqualTo(2);
        assertThat(again.err())
                .isEqualTo("shardq: subscription \"eu\" of topic news does not exist"
                        + " (shardq subscription list news shows them)\n");
    }

    @Test
    void subscriptionAdd_refusesABadSelector_aDuplicate_andABadName() {
        cli.run("topic", "create", "strict", "--shards", "1");
        CliRunner.Run selector = cli.run("subscription", "add", "strict", "s", "--selector", "region = ");
        assertOneLineError(selector);
        assertThat(selector.exit()).isEqualTo(2);
        assertThat(selector.err()).startsWith("shardq: selector \"region = \" is invalid: ");

        cli.run("subscription", "add", "strict", "s");
        CliRunner.Run twice = cli.run("subscription", "add", "strict", "s");
        assertOneLineError(twice);
        assertThat(twice.exit()).isEqualTo(2);
        assertThat(twice.err()).isEqualTo("shardq: subscription \"s\" already exists\n");

        CliRunner.Run name = cli.run("subscription", "add", "strict", "bad\tname");
        assertOneLineError(name);
        assertThat(name.exit()).isEqualTo(2);
        assertThat(name.err()).contains("is invalid: expected 1 to 255 characters without control characters");
        assertThat(cli.queryLong("select count(*) from shardq.subscription s join shardq.destination d"
                        + " on d.id = s.destination_id where d.name = 'strict'"))
                .isEqualTo(1);
    }

    @Test
    void subscriptionRemove_withAnActiveConsumer_isRefusedWithoutForce() {
        cli.run("topic", "create", "live", "--shards", "1");
        cli.run("subscription", "add", "live", "audit");
        try (Broker broker = cli.broker("test-consumer");
                BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            s.subscribe("live", shared("audit"));
            assertThat(cli.run("subscription", "list", "live").out())
                    .containsPattern("audit\\s+-\\s+shared durable\\s+-\\s+1\\s");

            CliRunner.Run refused = cli.run("subscription", "remove", "live", "audit");
            assertOneLineError(refused);
            assertThat(refused.exit()).isEqualTo(2);
            assertThat(refused.err())
                    .isEqualTo("shardq: subscription audit of topic live has 1 active consumer: close it first,"
                            + " or remove it anyway with --force (they then fail)\n");
            assertThat(cli.queryLong("select count(*) from shardq.subscription where name = 'audit'"))
                    .isEqualTo(1);

            CliRunner.Run forced = cli.run("subscription", "remove", "live", "audit", "--force");
            assertThat(forced.exit()).as(forced.err()).isZero();
            assertThat(forced.out()).isEqualTo("removed subscription audit from topic live\n");
            assertThat(cli.queryLong("select count(*) from shardq.subscription where name = 'audit'"))
                    .isZero();
        }
    }

    @Test
    void aStoppedSubscription_isNamedAsHoldingRetirement_inStatsAndList() {
        cli.run("topic", "create", "held", "--shards", "1", "--slice-size", "16");
        cli.run("subscription", "add", "held", "busy");
        cli.run("subscription", "add", "held", "stopped");
        try (Broker broker = cli.broker("test-publisher")) {
            publish(broker, "held", 100);
            assertThat(consume(broker, "held", "busy")).isEqualTo(100);
        }

        CliRunner.Run stats = cli.run("topic", "stats", "held");
        assertThat(stats.exit()).as(stats.err()).isZero();
        assertThat(stats.out())
                .startsWith("topic held\n")
                .contains("  published        100 messages stored since the topic was created\n")
                .contains("  retained         100 messages not yet passed by every subscription\n")
                .contains("  retirement       held by 1 subscription\n")
                .containsPattern(
                        "\nretirement held by subscription stopped: lag 100 messages, oldest [0-9.]+ (ms|s) old\n")
                .contains("(consume it, remove it with shardq subscription remove held stopped, or let its backlog"
                        + " expire: shardq topic alter held --max-lag N or --max-age DURATION)")
                .containsPattern("SHARD\\s+NEXT SEQ\\s+SLOWEST CURSOR\\s+SLOWEST SUBSCRIPTION\\s+RETAINED\\s+SLICES\n"
                        + "\\s+0\\s+101\\s+0\\s+stopped\\s+100\\s+\\d+\n")
                .containsPattern("busy\\s+-\\s+shared durable\\s+-\\s+0\\s+0\\s+-\\s+-\\s+-\n")
                .containsPattern("stopped\\s+-\\s+shared durable\\s+-\\s+0\\s+100\\s+[0-9.]+ (ms|s)\\s+held\\s+-\n");

        JsonNode json = cli.run("topic", "stats", "held", "--json").json();
        assertThat(json.get("name").asText()).isEqualTo("held");
        assertThat(json.get("published").asLong()).isEqualTo(100);
        assertThat(json.get("retained").asLong()).isEqualTo(100);
        assertThat(json.get("retirementHeldBy")).hasSize(1);
        assertThat(json.get("retirementHeldBy").get(0).get("name").asText()).isEqualTo("stopped");
        assertThat(json.get("retirementHeldBy").get(0).get("lag").asLong()).isEqualTo(100);
        assertThat(json.get("shards").get(0).get("slowestSubscription").asText())
                .isEqualTo("stopped");
        assertThat(json.get("shards").get(0).get("slowestCursor").asLong()).isZero();
        assertThat(json.get("subscriptions")).hasSize(2);

        CliRunner.Run list = cli.run("subscription", "list", "held");
        assertThat(list.out())
                .containsPattern("stopped\\s+-\\s+shared durable\\s+-\\s+0\\s+100\\s+[0-9.]+ (ms|s)\\s+held\\s+-\n")
                .containsPattern(
                        "\nretirement held by subscription stopped: lag 100 messages, oldest [0-9.]+ (ms|s) old\n");
        JsonNode subs = cli.run("subscription", "list", "held", "--json").json().get("subscriptions");
        assertThat(subs.get(1).get("name").asText()).isEqualTo("stopped");
        assertThat(subs.get(1).get("holdsRetirement").asBoolean()).isTrue();
        assertThat(subs.get(1).get("lag").asLong()).isEqualTo(100);
        assertThat(subs.get(0).get("holdsRetirement").asBoolean()).isFalse();

        // drop refuses while a subscription has messages to take, and says what it dropped with --force
        CliRunner.Run drop = cli.run("topic", "drop", "held");
        assertOneLineError(drop);
        assertThat(drop.exit()).isEqualTo(2);
        assertThat(drop.err())
                .isEqualTo("shardq: topic held is not empty: 100 messages not yet consumed by every subscription"
                        + " (shardq topic stats held shows which); drop it anyway with --force\n");
        CliRunner.Run forced = cli.run("topic", "drop", "held", "--force");
        assertThat(forced.exit()).as(forced.err()).isZero();
        assertThat(forced.out())
                .isEqualTo("dropped topic held, its 2 subscriptions and the 100 messages they had not consumed\n");
        assertThat(cli.queryLong("select count(*) from shardq.destination where name = 'held'"))
                .isZero();
    }

    @Test
    void stats_ofACaughtUpTopic_saysRetirementIsNotHeld_andDropNeedsNoForce() {
        cli.run("topic", "create", "calm", "--shards", "2");
        cli.run("subscription", "add", "calm", "only");
        try (Broker broker = cli.broker("test-publisher")) {
            publish(broker, "calm", 10);
            assertThat(consume(broker, "calm", "only")).isEqualTo(10);
        }
        CliRunner.Run stats = cli.run("topic", "stats", "calm");
        assertThat(stats.exit()).as(stats.err()).isZero();
        assertThat(stats.out())
                .contains("  retained         0 messages not yet passed by every subscription\n")
                .contains("  oldest retained  -\n")
                .contains("  retirement       not held")
                // both shards: every subscription at the head, so nobody is named as the slowest
                .containsPattern("SLOWEST SUBSCRIPTION.*\n(\\s+\\d\\s+\\d+\\s+\\d+\\s+-\\s+0\\s+\\d+\n){2}")
                .doesNotContain("retirement held by");
        CliRunner.Run drop = cli.run("topic", "drop", "calm");
        assertThat(drop.exit()).as(drop.err()).isZero();
        assertThat(drop.out()).isEqualTo("dropped topic calm and its 1 subscription\n");
    }

    /** The element of a JSON array whose "name" is {@code name} (test methods share the database). */
    private static JsonNode named(JsonNode array, String name) {
        for (JsonNode x : array) {
            if (x.get("name").asText().equals(name)) {
                return x;
            }
        }
        throw new AssertionError(name + " not in " + array);
    }

    @Test
    void emptyListings_sayWhatToDo() {
        cli.run("topic", "create", "bare", "--shards", "1");
        assertThat(cli.run("subscription", "list", "bare").out())
                .isEqualTo("topic bare has no subscriptions yet (add one: shardq subscription add bare NAME)\n");
        CliRunner.Run stats = cli.run("topic", "stats", "bare");
        assertThat(stats.exit()).as(stats.err()).isZero();
        assertThat(stats.out()).containsPattern("\\s+0\\s+1\\s+-\\s+-\\s+0\\s+0\n");
        assertThat(cli.run("topic", "drop", "bare").out()).isEqualTo("dropped topic bare\n");
    }
}

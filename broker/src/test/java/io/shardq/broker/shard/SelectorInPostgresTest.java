package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.Engines;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.selector.Selector;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A queue consumer's selector evaluated in PostgreSQL first ({@link SelectorSql}): over a backlog
 * where few messages match, the rows the selector skips are not read into the JVM, and rows
 * PostgreSQL cannot judge (written before the properties column) are still evaluated by the JVM.
 */
@PgTest
class SelectorInPostgresTest {

    @Test
    void aSelectiveConsumer_readsTheRowsItSelects_notTheBacklog(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(
                db.brokerConfig().set(BrokerProperty.HEARTBEAT_MS, 200).build())) {
            broker.admin()
                    .queues()
                    .create("pre", QueueOptions.DEFAULTS.withShards(1).withSliceSize(4_000));
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (int i = 0; i < 10_000; i++) {
                    p.send("pre", Messages.text("m" + i, Map.of("i", i, "pick", i % 1_000 == 999)));
                    if (i % 500 == 499) {
                        p.commit();
                    }
                }
                p.commit();
            }
            List<Integer> picked = consumeAll(broker, "pre", "pick = TRUE AND i > 0");
            assertThat(picked).containsExactly(999, 1999, 2999, 3999, 4999, 5999, 6999, 7999, 8999, 9999);
            assertThat(broker.admin().queues().backlog("pre")).isEqualTo(9_990);
        }
    }

    @Test
    void rowsWrittenBeforeThePropertiesColumn_areStillJudgedByTheJvm(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(
                db.brokerConfig().set(BrokerProperty.HEARTBEAT_MS, 200).build())) {
            int id = broker.admin()
                    .queues()
                    .create("old", QueueOptions.DEFAULTS.withShards(1))
                    .id();
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (int i = 0; i < 20; i++) {
                    p.send("old", Messages.text("m" + i, Map.of("i", i, "pick", i % 5 == 0)));
                }
                p.commit();
            }
            // the first ten as a database from before V018 holds them: no properties column, and
            // properties_from after them (the leaf is written directly, as the migration found it)
            try (Connection c = db.connect();
                    Statement s = c.createStatement()) {
                s.execute("UPDATE shardq.m_" + id + "_0_0 SET properties = NULL WHERE seq <= 10");
                s.execute("UPDATE shardq.shard SET properties_from = 11 WHERE destination_id = " + id);
            }
            assertThat(consumeAll(broker, "old", "pick = TRUE")).containsExactly(0, 5, 10, 15);
        }
    }

    @Test
    void consumersOfOneSessionWithOtherSelectors_eachGetWhatTheirsSelects(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(
                db.brokerConfig().set(BrokerProperty.HEARTBEAT_MS, 200).build())) {
            broker.admin().queues().create("two", QueueOptions.DEFAULTS.withShards(1));
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (int i = 0; i < 6; i++) {
                    p.send("two", Messages.text("m" + i, Map.of("i", i, "k", i % 2 == 0 ? "a" : "b")));
                }
                p.commit();
            }
            // the session's consumers share its claim of the shard: each selector is asked on its own
            Selector a = Selector.compile("k = 'a'");
            Selector b = Selector.compile("k = 'b'");
            List<Integer> got = new ArrayList<>();
            try (BrokerSession c = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (int round = 0; round < 3; round++) {
                    got.add((Integer) c.receive("two", 10_000, false, a)
                            .message()
                            .properties()
                            .get("i"));
                    got.add((Integer) c.receive("two", 10_000, false, b)
                            .message()
                            .properties()
                            .get("i"));
                }
                c.commit();
            }
            assertThat(got).containsExactly(0, 1, 2, 3, 4, 5);
        }
    }

    /** 1,000,000 messages, 10 selected: the JVM reads about 10 rows; how long it takes is printed. */
    @Test
    @Tag("long")
    void tenAmongAMillion(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(
                db.brokerConfig().set(BrokerProperty.HEARTBEAT_MS, 200).build())) {
            broker.admin()
                    .queues()
                    .create("million", QueueOptions.DEFAULTS.withShards(1).withSliceSize(200_000));
            try (Connection c = db.connect();
                    PreparedStatement ps = c.prepareStatement("SELECT cardinality(shardq.send_batch('million',"
                            + " array_fill('x'::text, ARRAY[10000]),"
                            + " ARRAY(SELECT jsonb_build_object('n', g, 'pick', g % 100000 = 99999)"
                            + " FROM generate_series(?::bigint, ? + 9999) g)))")) {
                for (long from = 0; from < 1_000_000; from += 10_000) {
                    ps.setLong(1, from);
                    ps.setLong(2, from);
                    ps.executeQuery().close();
                }
            }
            long rowsBefore = Engines.of(broker).stats().messageRowsRead();
            Selector pick = Selector.compile("pick = TRUE");
            List<Long> picked = new ArrayList<>();
            try (BrokerSession c = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                long t0 = System.nanoTime();
                for (int i = 0; i < 10; i++) {
                    Delivery d = c.receive("million", 60_000, false, pick);
                    assertThat(d).as("selected message %s", i).isNotNull();
                    picked.add(((Number) d.message().properties().get("n")).longValue());
                }
                c.commit();
                long ms = (System.nanoTime() - t0) / 1_000_000;
                long rows = Engines.of(broker).stats().messageRowsRead() - rowsBefore;
                // a figure for the benchmark notes, not an assertion on time (docs/performance.md)
                System.out.printf(
                        "selective consumption of 10 among 1,000,000: %d ms to the 10th commit, %d rows read"
                                + " into the JVM%n",
                        ms, rows);
                assertThat(c.receive("million", 200, false, pick)).isNull();
            }
            long rows = Engines.of(broker).stats().messageRowsRead() - rowsBefore;
            assertThat(picked)
                    .containsExactly(
                            99_999L, 199_999L, 299_999L, 399_999L, 499_999L, 599_999L, 699_999L, 799_999L, 899_999L,
                            999_999L);
            assertThat(rows).isLessThanOrEqualTo(20);
        }
    }

    /** Everything {@code selector} selects, in one transacted session, by the "i" or "n" property. */
    private static List<Integer> consumeAll(Broker broker, String queue, String selector) {
        long rowsBefore = Engines.of(broker).stats().messageRowsRead();
        List<Integer> got = new ArrayList<>();
        Selector sel = Selector.compile(selector);
        try (BrokerSession c = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            Delivery d;
            while ((d = c.receive(queue, 500, false, sel)) != null) {
                Object n = d.message()
                        .properties()
                        .getOrDefault("i", d.message().properties().get("n"));
                got.add(((Number) n).intValue());
            }
            c.commit();
        }
        long rows = Engines.of(broker).stats().messageRowsRead() - rowsBefore;
        assertThat(rows).as("rows read into the JVM").isLessThanOrEqualTo(2L * got.size() + 10);
        return got;
    }
}

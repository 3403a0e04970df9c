package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.selector.Selector;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Consumers with selectors take what matches and leave the rest, in order, exactly once. */
@PgTest
class SelectiveConsumerTest {

    @Test
    void selector_takesMatching_leavesOthers_andTheCursorCatchesUp(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(
                db.brokerConfig().set(BrokerProperty.HEARTBEAT_MS, 200).build())) {
            broker.admin()
                    .queues()
                    .create("sel", QueueOptions.DEFAULTS.withShards(1).withSliceSize(16));
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (int i = 0; i < 40; i++) {
                    p.send("sel", Messages.text("m" + i, Map.of("color", i % 4 == 0 ? "red" : "blue", "i", i)));
                }
                p.commit();
            }
            Selector red = Selector.compile("color = 'red'");
            List<Integer> reds = new ArrayList<>();
            try (BrokerSession c = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                Delivery d;
                while ((d = c.receive("sel", 300, false, red)) != null) {
                    reds.add((Integer) d.message().properties().get("i"));
                    if (reds.size() % 3 == 0) {
                        c.commit();
                    }
                }
                c.commit();
            }
            assertThat(reds).containsExactly(0, 4, 8, 12, 16, 20, 24, 28, 32, 36);
            assertThat(broker.admin().queues().backlog("sel"))
                    .isEqualTo(30); // the blues: reds taken out of order are not counted
            assertThat(loggedMessages(db)).isEqualTo(9); // the other reds, taken out of order

            List<Integer> rest = new ArrayList<>();
            try (BrokerSession c = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                Delivery d;
                while ((d = c.receive("sel", 300, false)) != null) {
                    rest.add((Integer) d.message().properties().get("i"));
                }
            }
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                if (i % 4 != 0) {
                    expected.add(i);
                }
            }
            assertThat(rest).containsExactlyElementsOf(expected); // in order, reds skipped, none twice
            assertThat(broker.admin().queues().backlog("sel")).isZero();
            assertThat(loggedMessages(db)).isZero();
        }
    }

    @Test
    void selector_rollback_redelivers_onlyTheMatching(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            broker.admin().queues().create("sel2", QueueOptions.DEFAULTS.withShards(1));
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                p.send("sel2", Messages.text("a", Map.of("k", 1)));
                p.send("sel2", Messages.text("b", Map.of("k", 2)));
                p.commit();
            }
            Selector k2 = Selector.compile("k = 2");
            try (BrokerSession c = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                assertThat(Messages.body(c.receive("sel2", 1000, false, k2).message()))
                        .isEqualTo("b");
                c.rollback();
                Delivery again = c.receive("sel2", 1000, false, k2);
                assertThat(Messages.body(again.message())).isEqualTo("b");
                assertThat(again.deliveryCount()).isEqualTo(2);
                c.commit();
                assertThat(c.receive("sel2", 200, false, k2)).isNull();
            }
            try (BrokerSession c = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                assertThat(Messages.body(c.receive("sel2", 1000, false).message()))
                        .isEqualTo("a");
                assertThat(c.receive("sel2", 200, false)).isNull();
            }
        }
    }

    static long loggedMessages(TestDatabase db) throws Exception {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("select coalesce(sum(last_seq - first_seq + 1), 0) from shardq.dequeue_range")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void aSelectorThatFailsToEvaluate_selectsNothing_andConsumesNothing(TestDatabase db) {
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            broker.admin().queues().create("sel.err", QueueOptions.DEFAULTS.withShards(1));
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (int i = 0; i < 5; i++) {
                    p.send("sel.err", Messages.text("m" + i, Map.of("flag", true)));
                }
                p.commit();
            }
            Selector broken = Selector.compile("flag + 1 > 0"); // arithmetic on a boolean
            for (BrokerSession.Mode mode :
                    List.of(BrokerSession.Mode.AUTO_ACKNOWLEDGE, BrokerSession.Mode.TRANSACTED)) {
                try (BrokerSession c = broker.openSession(mode)) {
                    for (int i = 0; i < 5; i++) {
                        assertThat(c.receive("sel.err", 50, false, broken))
                                .as(mode.name())
                                .isNull();
                    }
                    if (mode == BrokerSession.Mode.TRANSACTED) {
                        c.commit();
                    }
                }
            }
            assertThat(broker.admin().queues().backlog("sel.err")).isEqualTo(5);
            List<String> all = new ArrayList<>();
            try (BrokerSession c = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                Delivery d;
                while ((d = c.receive("sel.err", 500, false)) != null) {
                    all.add(Messages.body(d.message()));
                }
            }
            assertThat(all).containsExactly("m0", "m1", "m2", "m3", "m4");
        }
    }
}

package io.shardq.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.selector.Selector;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.shard.Delivery;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The admin SQL functions shardq.shard_stats, shardq.instances and shardq.leases, from SQL and through Admin. */
@PgTest
class AdminViewsTest {

    @Test
    void shardStats_countsWaiting_withoutMessagesTakenOutOfOrder(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            broker.admin().queues().create("views.q", QueueOptions.DEFAULTS.withShards(1));
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (int i = 0; i < 10; i++) {
                    p.send("views.q", Messages.text("m" + i, Map.of("i", i)));
                }
                p.commit();
            }
            // takes 0 (the cursor moves to 1), then 3, 6 and 9 out of order (dequeue log)
            try (BrokerSession c = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                Selector third = Selector.compile("i = 0 OR i = 3 OR i = 6 OR i = 9");
                Delivery d;
                int taken = 0;
                while ((d = c.receive("views.q", 300, false, third)) != null) {
                    taken++;
                }
                c.commit();
                assertThat(taken).isEqualTo(4);
            }
            try (Connection c = db.connect();
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("select shard_no, next_seq, cursor_position, waiting, taken_ahead"
                            + " from shardq.shard_stats('views.q')")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).isZero();
                assertThat(rs.getLong(2)).isEqualTo(11);
                assertThat(rs.getLong(3)).isEqualTo(1);
                assertThat(rs.getLong(4)).isEqualTo(6);
                assertThat(rs.getLong(5)).isEqualTo(3);
                assertThat(rs.next()).isFalse();
            }
            assertThat(broker.admin().queues().shards("views.q"))
                    .singleElement()
                    .satisfies(sh -> {
                        assertThat(sh.nextSeq()).isEqualTo(11);
                        assertThat(sh.position()).isEqualTo(1);
                        assertThat(sh.backlog()).isEqualTo(6);
                    });
            assertThat(broker.admin().queues().stats("views.q").backlog()).isEqualTo(6);
            assertThat(broker.admin().queues().backlog("views.q")).isEqualTo(6);
        }
    }

    @Test
    void instancesAndLeases_showTheLiveInstance_andWhoHoldsEachShard(TestDatabase db) throws Exception {
        long id;
        try (Broker broker = Broker.start(
                db.brokerConfig().set(BrokerProperty.INSTANCE_NAME, "views-app").build())) {
            id = broker.instanceId();
            broker.admin().queues().create("views.l", QueueOptions.DEFAULTS.withShards(2));
            try (BrokerSession c = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                assertThat(c.receive("views.l", 100, false)).isNull(); // takes the leases
            }
            assertThat(broker.admin().cluster().leases("views.l")).hasSize(2).allSatisfy(l -> {
                assertThat(l.instanceId()).isEqualTo(id);
                assertThat(l.instanceName()).isEqualTo("views-app");
                assertThat(l.subscription()).isEmpty();
                assertThat(l.live()).isTrue();
            });
            assertThat(broker.admin().cluster().instances(30))
                    .filteredOn(i -> i.id() == id)
                    .singleElement()
                    .satisfies(i -> {
                        assertThat(i.name()).isEqualTo("views-app");
                        assertThat(i.leasesHeld()).isEqualTo(2);
                        assertThat(i.heartbeatAgeMillis()).isNotNegative();
                    });
            try (Connection c = db.connect();
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("select count(*) from shardq.leases('views.l') where live")) {
                rs.next();
                assertThat(rs.getLong(1)).isEqualTo(2);
            }
        }
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select count(*) from shardq.instances() where id = " + id)) {
            rs.next();
            assertThat(rs.getLong(1)).as("a stopped instance is not listed").isZero();
        }
    }

    @Test
    void views_unknownQueue_raiseUndefinedObject(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(db.brokerConfig().build());
                Connection c = db.connect();
                Statement s = c.createStatement()) {
            assertThatThrownBy(() -> s.executeQuery("select * from shardq.shard_stats('views.nope')"))
                    .isInstanceOfSatisfying(
                            SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42704"));
            assertThatThrownBy(() -> broker.admin().cluster().leases("views.nope"))
                    .isInstanceOfSatisfying(
                            ShardQException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.UNKNOWN_DESTINATION));
        }
    }
}

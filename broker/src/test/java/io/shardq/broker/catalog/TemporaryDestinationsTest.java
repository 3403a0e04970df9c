package io.shardq.broker.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.Admin;
import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.shard.Delivery;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Temporary destinations in the engine: created, owned, dropped, never auto-created, reaped. */
@PgTest
class TemporaryDestinationsTest {

    @Test
    void temporaryQueue_isARealDestination_droppedOnlyByItsOwner(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            UUID owner = UUID.randomUUID();
            DestinationInfo d = broker.temporaries().create("queue", owner);
            assertThat(d.name()).startsWith("tmp." + broker.instanceId() + ".").matches(Names.DESTINATION);
            assertThat(d.shardCount()).isEqualTo(1);
            assertThat(d.deadLetterQueue()).isEqualTo("temporary.DLQ");
            assertThat(broker.temporaries().owner(d.name())).contains(owner);
            assertThat(broker.admin().cluster().temporaryDestinations())
                    .extracting(Admin.Temporary::name, Admin.Temporary::kind, Admin.Temporary::ownerAlive)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple(d.name(), "queue", true));

            try (BrokerSession s = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                s.send(d.name(), Messages.text("reply"));
                Delivery got = s.receive(d.name(), 5_000, false);
                assertThat(Messages.body(got.message())).isEqualTo("reply");
            }
            assertThatThrownBy(() -> broker.temporaries().drop(d.name(), UUID.randomUUID()))
                    .isInstanceOf(ShardQException.class)
                    .hasMessageContaining("belongs to another connection")
                    .extracting(e -> ((ShardQException) e).kind())
                    .isEqualTo(ErrorKind.SECURITY);
            broker.temporaries().drop(d.name(), owner);
            assertThat(tableExists(db, d.id())).isFalse();
            assertThat(broker.temporaries().owner(d.name())).isEmpty();
            // a send to it afterwards fails: a tmp. name is never created on first use
            try (BrokerSession s = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                assertThatThrownBy(() -> s.send(d.name(), Messages.text("late")))
                        .isInstanceOf(ShardQException.class)
                        .hasMessageContaining("does not exist")
                        .extracting(e -> ((ShardQException) e).kind())
                        .isEqualTo(ErrorKind.UNKNOWN_DESTINATION);
            }
            assertThat(broker.admin().list()).extracting(DestinationInfo::name).doesNotContain(d.name());
            broker.admin().queues().create("plain", io.shardq.broker.QueueOptions.DEFAULTS);
            assertThatThrownBy(() -> broker.temporaries().drop("plain", owner))
                    .hasMessageContaining("is not temporary");
        }
    }

    @Test
    void closingTheInstance_dropsItsTemporaries(TestDatabase db) throws Exception {
        DestinationInfo d;
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            d = broker.temporaries().create("topic", UUID.randomUUID());
            assertThat(d.kind()).isEqualTo("topic");
            assertThat(tableExists(db, d.id())).isTrue();
        }
        assertThat(tableExists(db, d.id())).isFalse();
    }

    @Test
    void temporariesOfADeadInstance_areDroppedByTheLeader(TestDatabase db) throws Exception {
        try (Broker leader = Broker.start(db.brokerConfig()
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.LEASE_TTL_MS, 1500)
                .build())) {
            String orphan;
            try (Connection c = db.connect();
                    PreparedStatement ps = c.prepareStatement(
                            "with i as (insert into shardq.instance (name, heartbeat_at) values ('ghost',"
                                    + " now() - interval '1 hour') returning id)"
                                    + " select shardq.create_temporary('queue', i.id, gen_random_uuid()) from i");
                    ResultSet rs = ps.executeQuery()) {
                rs.next();
                orphan = rs.getString(1);
            }
            DestinationInfo mine = leader.temporaries().create("queue", UUID.randomUUID());
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> leader.admin().cluster().temporaryDestinations().stream()
                            .noneMatch(t -> t.name().equals(orphan)));
            assertThat(leader.temporaries().owner(mine.name())).isPresent(); // a live instance's stays
        }
    }

    static boolean tableExists(TestDatabase db, int id) throws Exception {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement("select to_regclass(?) is not null")) {
            ps.setString(1, "shardq.m_" + id);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }
}

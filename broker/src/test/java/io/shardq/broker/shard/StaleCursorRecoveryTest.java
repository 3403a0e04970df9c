package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.Broker;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.ShardQException;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The database moved a cursor without this instance learning it (what a lost reply to a
 * consumer's commit leaves behind): the next commit on the shard fails its guard, and from then on
 * the instance delivers from the database's position. Before, it kept its stale cursor, every later
 * commit failed, and the shard's messages went to the dead-letter queue one attempt at a time.
 */
@PgTest
class StaleCursorRecoveryTest {

    @Test
    void aGuardFailure_makesTheInstanceReReadTheCursor_noWedge_noDeadLetters(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            broker.admin()
                    .createQueue("stale.q", QueueOptions.DEFAULTS.withShards(1).withMaxAttempts(3));
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (int i = 1; i <= 20; i++) {
                    p.send("stale.q", Messages.text("m" + i));
                }
                p.commit();
            }
            List<String> got = new ArrayList<>();
            try (BrokerSession c = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (int i = 0; i < 5; i++) {
                    got.add(Messages.body(c.receive("stale.q", 5000, false).message()));
                }
                c.commit(); // cursor at 5, here and in the database
                // a commit of m6..m10 took effect, and its reply never came back
                long sub = broker.admin().require("stale.q").queueSubscription();
                try (Connection sql = db.connect();
                        PreparedStatement ps = sql.prepareStatement(
                                "UPDATE shardq.cursor SET position = position + 5 WHERE subscription_id = ?")) {
                    ps.setLong(1, sub);
                    assertThat(ps.executeUpdate()).isEqualTo(1);
                }
                Delivery stale = c.receive("stale.q", 5000, false);
                assertThat(Messages.body(stale.message())).isEqualTo("m6"); // the instance did not know yet
                assertThatThrownBy(c::commit)
                        .isInstanceOf(ShardQException.class)
                        .extracting(e -> ((ShardQException) e).kind())
                        .isEqualTo(ErrorKind.ROLLED_BACK);
                // from now on: the database's position, every message once, and commits work
                for (int i = 0; i < 10; i++) {
                    Delivery d = c.receive("stale.q", 5000, false);
                    assertThat(d).as("message %d after the failed commit", i).isNotNull();
                    got.add(Messages.body(d.message()));
                    assertThat(d.deliveryCount()).isEqualTo(1);
                    c.commit();
                }
                assertThat(c.receive("stale.q", 200, false)).isNull();
            }
            assertThat(got)
                    .containsExactly(
                            "m1", "m2", "m3", "m4", "m5", "m11", "m12", "m13", "m14", "m15", "m16", "m17", "m18", "m19",
                            "m20");
            assertThat(broker.admin().backlog("stale.q")).isZero();
            assertThat(broker.stats().deadLettered()).isZero();
        }
    }
}

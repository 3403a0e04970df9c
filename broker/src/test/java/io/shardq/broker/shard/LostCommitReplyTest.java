package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.ShardQException;
import io.shardq.broker.testing.FaultProxy;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A consumer's commit whose connection breaks: either PostgreSQL committed the cursor move and
 * the reply was lost, or the statement never reached it. The application is told the outcome is
 * unknown; either way every message is delivered and consumed exactly once afterwards, the shard
 * keeps working, and nothing goes to the dead-letter queue. (Before: after a lost reply the
 * instance kept its stale cursor, every later commit on the shard failed, and its messages were
 * dead-lettered.)
 */
@PgTest
class LostCommitReplyTest {

    @ParameterizedTest
    @EnumSource(FaultProxy.Fault.class)
    void aBrokenConsumerCommit_losesNothing_duplicatesNothing_andTheShardKeepsWorking(
            FaultProxy.Fault fault, TestDatabase db) throws Exception {
        db.assumeNotCitus("the fault proxy's cut of the commit does not take there (open: docs/design/citus.md)");
        try (FaultProxy proxy = FaultProxy.in(db.jdbcUrl());
                Broker broker = Broker.start(db.brokerConfig()
                        .set(BrokerProperty.JDBC_URL, proxy.url(db.jdbcUrl()))
                        .build())) {
            String q = "lost." + fault.name().toLowerCase();
            broker.admin()
                    .queues()
                    .create(q, QueueOptions.DEFAULTS.withShards(1).withMaxAttempts(2));
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (int i = 1; i <= 20; i++) {
                    p.send(q, Messages.text("m" + i));
                }
                p.commit();
            }
            List<String> consumed = new ArrayList<>();
            try (BrokerSession c = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                List<String> batch = receive(c, q, 5);
                c.commit();
                consumed.addAll(batch);

                batch = receive(c, q, 5); // m6..m10
                CountDownLatch fired = proxy.arm("shardq.cursor SET position", fault);
                assertThatThrownBy(c::commit)
                        .isInstanceOf(ShardQException.class)
                        .hasMessageContaining("outcome is unknown")
                        .extracting(e -> ((ShardQException) e).kind())
                        .isEqualTo(ErrorKind.IN_DOUBT);
                assertThat(FaultProxy.await(fired, 10)).isTrue();
                if (fault == FaultProxy.Fault.LOSE_REPLY) {
                    consumed.addAll(batch); // PostgreSQL committed them
                }
                while (consumed.size() < 20) {
                    Delivery d = c.receive(q, 10_000, false);
                    assertThat(d).as("after %s", consumed).isNotNull();
                    consumed.add(Messages.body(d.message()));
                    c.commit();
                }
                assertThat(c.receive(q, 200, false)).isNull();
            }
            List<String> expected = new ArrayList<>();
            for (int i = 1; i <= 20; i++) {
                expected.add("m" + i);
            }
            assertThat(consumed).containsExactlyElementsOf(expected);
            assertThat(broker.admin().queues().backlog(q)).isZero();
            assertThat(broker.stats().deadLettered()).isZero();
        }
    }

    private static List<String> receive(BrokerSession c, String q, int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(Messages.body(c.receive(q, 5000, false).message()));
        }
        return out;
    }
}

package io.shardq.perf;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@PgTest
class SqlSenderSystemTest {

    /** sql-send: JMS consumers; sql: SQL consumers (shardq.receive). */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void batchesSentWithSendBatch_reachTheConsumers_withTheirStamps(boolean sqlConsumers, TestDatabase db)
            throws Exception {
        SqlSenderSystem system = new SqlSenderSystem(db::brokerConfig, sqlConsumers);
        system.setUp(db.dataSource(), new Settings(2, 100, 5, 2, true, false));
        Set<Long> sent = new HashSet<>();
        try (QueueSystem.Producer first = system.producer();
                QueueSystem.Producer second = system.producer();
                QueueSystem.Consumer consumer = system.consumer()) {
            byte[] template = Payloads.filler(100, 7);
            long seq = 0;
            for (int b = 0; b < 6; b++) {
                List<byte[]> batch = new ArrayList<>();
                for (int i = 0; i < 5; i++) {
                    long micros = 1_000 + seq;
                    sent.add(micros);
                    batch.add(Payloads.stamped(template, micros, seq++));
                }
                (b % 2 == 0 ? first : second).sendBatch(batch);
            }
            assertThat(system.backlog()).isEqualTo(30);
            Set<Long> received = new HashSet<>();
            List<String> ids = new ArrayList<>();
            while (received.size() < 30) {
                List<QueueSystem.Delivery> got = consumer.receiveBatch(5, Duration.ofSeconds(10));
                assertThat(got).as("a batch within the wait").isNotEmpty();
                got.forEach(d -> {
                    received.add(d.sentMicros());
                    ids.add(d.id());
                });
            }
            assertThat(received).isEqualTo(sent);
            assertThat(ids).allMatch(id -> id.startsWith("ID:sql-"));
            assertThat(system.backlog()).isZero();
        } finally {
            system.tearDown();
        }
    }
}

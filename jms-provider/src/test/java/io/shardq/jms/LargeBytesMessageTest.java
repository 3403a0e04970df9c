package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import java.security.MessageDigest;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * An ordinary BytesMessage of 100 MB (not streamed) is sent and received intact, in a transacted
 * session; the heap it needs is printed (issue 12: "an ordinary BytesMessage of 100 MB works, with
 * memory stated in the docs").
 */
@PgTest
@Tag("long")
class LargeBytesMessageTest {
    static final int SIZE = 100 * 1024 * 1024;

    @Test
    void aHundredMegabyteBytesMessage_goesThroughIntact(TestDatabase db) throws Exception {
        byte[] body = new byte[SIZE];
        new Random(3).nextBytes(body);
        byte[] sent = MessageDigest.getInstance("SHA-256").digest(body);
        Runtime rt = Runtime.getRuntime();
        try (ShardQConnectionFactory factory =
                        new ShardQConnectionFactory(db.brokerConfig().build());
                Connection connection = factory.createConnection()) {
            connection.start();
            Session s = connection.createSession(true, Session.SESSION_TRANSACTED);
            Queue q = s.createQueue("large.bytes");
            MessageProducer p = s.createProducer(q);
            BytesMessage m = s.createBytesMessage();
            m.writeBytes(body);
            body = null;
            long t0 = System.nanoTime();
            p.send(m);
            s.commit();
            long sendMs = (System.nanoTime() - t0) / 1_000_000;
            m = null;
            MessageConsumer c = s.createConsumer(q);
            long t1 = System.nanoTime();
            BytesMessage got = (BytesMessage) c.receive(120_000);
            assertThat(got).isNotNull();
            assertThat(got.getBodyLength()).isEqualTo(SIZE);
            byte[] back = new byte[SIZE];
            assertThat(got.readBytes(back)).isEqualTo(SIZE);
            s.commit();
            long receiveMs = (System.nanoTime() - t1) / 1_000_000;
            assertThat(MessageDigest.getInstance("SHA-256").digest(back)).isEqualTo(sent);
            long peak = 0;
            for (java.lang.management.MemoryPoolMXBean pool :
                    java.lang.management.ManagementFactory.getMemoryPoolMXBeans()) {
                if (pool.getType() == java.lang.management.MemoryType.HEAP) {
                    peak += pool.getPeakUsage().getUsed();
                }
            }
            System.out.printf(
                    "100 MB BytesMessage: send+commit %d ms, receive+commit %d ms; heap peak (sum of the pools' peaks)"
                            + " %d MB, in use now %d MB, max %d MB%n",
                    sendMs, receiveMs, peak >> 20, (rt.totalMemory() - rt.freeMemory()) >> 20, rt.maxMemory() >> 20);
        }
    }
}

package io.shardq.jms;

import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.HexFormat;

/**
 * Run in a JVM of its own with a small heap by {@link StreamedGigabyteTest}: streams {@code size}
 * seeded bytes into a queue as one BytesMessage (JMS_ShardQ_InputStream), sends {@code fillers}
 * small messages after it (so its slice fills and can be retired), then receives it in a
 * CLIENT_ACKNOWLEDGE session, writes the body to a digesting OutputStream (JMS_ShardQ_SaveStream),
 * acknowledges, and prints one line: {@code DONE sendMs=.. receiveMs=.. sha256=.. heapPeakMb=..
 * heapMaxMb=..}; {@code FAILED ...} on an exception. Arguments: JDBC URL, user, password, queue,
 * size, seed, fillers.
 */
public final class StreamGigabyteMain {
    private StreamGigabyteMain() {}

    public static void main(String[] args) throws Exception {
        try {
            run(args);
        } catch (Throwable t) {
            System.out.println("FAILED " + t);
            t.printStackTrace(System.out);
            System.out.flush();
            System.exit(1);
        }
        System.exit(0);
    }

    private static void run(String[] args) throws Exception {
        BrokerConfig config = BrokerConfig.builder()
                .isolated()
                .set(BrokerProperty.JDBC_URL, args[0])
                .set(BrokerProperty.JDBC_USER, args[1])
                .set(BrokerProperty.JDBC_PASSWORD, args[2])
                .set(BrokerProperty.POOL_SIZE, 8)
                .build();
        String queue = args[3];
        long size = Long.parseLong(args[4]);
        long seed = Long.parseLong(args[5]);
        int fillers = Integer.parseInt(args[6]);
        try (ShardQConnectionFactory factory = new ShardQConnectionFactory(config);
                Connection connection = factory.createConnection()) {
            connection.start();
            Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue q = s.createQueue(queue);
            MessageProducer p = s.createProducer(q);
            BytesMessage m = s.createBytesMessage();
            m.setObjectProperty("JMS_ShardQ_InputStream", new SeededStream(seed, size));
            long t0 = System.nanoTime();
            p.send(m);
            long sendMs = (System.nanoTime() - t0) / 1_000_000;
            for (int i = 0; i < fillers; i++) {
                p.send(s.createTextMessage("filler " + i));
            }

            Session cs = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
            MessageConsumer c = cs.createConsumer(q);
            long t1 = System.nanoTime();
            BytesMessage got = (BytesMessage) c.receive(60_000);
            if (got == null || got.getBodyLength() != size) {
                throw new IllegalStateException("expected a body of " + size + " bytes, got " + got);
            }
            SeededStream.DigestSink sink = new SeededStream.DigestSink();
            got.setObjectProperty("JMS_ShardQ_SaveStream", sink);
            long receiveMs = (System.nanoTime() - t1) / 1_000_000;
            for (int i = 0; i < fillers; i++) {
                if (c.receive(60_000) == null) {
                    throw new IllegalStateException("filler " + i + " did not arrive");
                }
            }
            got.acknowledge();
            long peak = 0;
            for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                if (pool.getType() == MemoryType.HEAP) {
                    peak += pool.getPeakUsage().getUsed();
                }
            }
            System.out.println("DONE sendMs=" + sendMs + " receiveMs=" + receiveMs + " saved=" + sink.count
                    + " sha256=" + HexFormat.of().formatHex(sink.digest.digest()) + " heapPeakMb=" + (peak >> 20)
                    + " heapMaxMb=" + (Runtime.getRuntime().maxMemory() >> 20));
            System.out.flush();
        }
    }
}

package io.shardq.broker.testing;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.ShardQException;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.shard.Delivery;
import java.util.ArrayList;
import java.util.List;

/**
 * Run in a separate JVM by tests: an instance that consumes a queue in transactions of up to five
 * messages until killed, printing {@code DELIVERED <body>} for each delivery, {@code COMMITTED
 * <body>,...} after each successful commit and {@code FAILED <kind>} for each failed one, after
 * {@code INSTANCE <id>} once started. Args:
 * JDBC URL, queue, lease TTL in ms.
 */
public final class ConsumeAndReportMain {
    private ConsumeAndReportMain() {}

    public static void main(String[] args) {
        BrokerConfig config = BrokerConfig.builder()
                .isolated()
                .set(BrokerProperty.JDBC_URL, args[0])
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.LEASE_TTL_MS, Integer.parseInt(args[2]))
                .build();
        Broker broker = Broker.start(config);
        System.out.println("INSTANCE " + broker.instanceId());
        System.out.flush();
        while (true) {
            try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                while (true) {
                    List<String> batch = new ArrayList<>();
                    Delivery d = s.receive(args[1], 100, false);
                    while (d != null) {
                        String body = Messages.body(d.message());
                        System.out.println("DELIVERED " + body);
                        batch.add(body);
                        d = batch.size() < 5 ? s.receive(args[1], -1, false) : null;
                    }
                    if (!batch.isEmpty()) {
                        s.commit();
                        System.out.println("COMMITTED " + String.join(",", batch));
                    }
                    System.out.flush();
                }
            } catch (ShardQException e) {
                System.out.println("FAILED " + e.kind());
                System.out.flush();
            }
        }
    }
}

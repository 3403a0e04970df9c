package io.shardq.broker.testing;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.shard.Delivery;

/**
 * Run in a separate JVM by tests: an instance that leases a queue's shards, receives some
 * messages in an open transaction, says CLAIMED and then hangs until it is killed. Arguments: JDBC
 * URL, destination, how many to receive, and optionally the name of a topic's shared durable
 * subscription to receive from instead of a queue.
 */
public final class ClaimAndHangMain {
    private ClaimAndHangMain() {}

    public static void main(String[] args) throws Exception {
        BrokerConfig config = BrokerConfig.builder()
                .isolated()
                .set(BrokerProperty.JDBC_URL, args[0])
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.LEASE_TTL_MS, 2000)
                .build();
        Broker broker = Broker.start(config);
        BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED);
        int got = 0;
        io.shardq.broker.shard.BrokerConsumer sub = args.length > 3
                ? s.subscribe(
                        args[1],
                        new io.shardq.broker.SubscriptionSpec(
                                io.shardq.broker.SubscriptionSpec.Kind.SHARED_DURABLE, args[3], null, null, false, "c"))
                : null;
        for (int i = 0; i < Integer.parseInt(args[2]); i++) {
            Delivery d = sub != null ? sub.receive(10_000, false) : s.receive(args[1], 10_000, false);
            if (d != null) {
                got++;
            }
        }
        System.out.println("CLAIMED " + got);
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}

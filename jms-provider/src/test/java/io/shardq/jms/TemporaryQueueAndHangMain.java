package io.shardq.jms;

import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import jakarta.jms.Connection;
import jakarta.jms.Session;
import jakarta.jms.TemporaryQueue;

/**
 * Run in a separate JVM by {@link TemporaryDestinationTest}: an instance that creates a temporary
 * queue, sends one message to it, prints {@code CREATED <name>} and hangs until it is killed.
 * Arguments: JDBC URL, user, password.
 */
public final class TemporaryQueueAndHangMain {
    private TemporaryQueueAndHangMain() {}

    public static void main(String[] args) throws Exception {
        BrokerConfig config = BrokerConfig.builder()
                .isolated()
                .set(BrokerProperty.JDBC_URL, args[0])
                .set(BrokerProperty.JDBC_USER, args[1])
                .set(BrokerProperty.JDBC_PASSWORD, args.length > 2 ? args[2] : "")
                .set(BrokerProperty.POOL_SIZE, 4)
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.LEASE_TTL_MS, 2000)
                .build();
        ShardQConnectionFactory factory = new ShardQConnectionFactory(config);
        Connection connection = factory.createConnection();
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        TemporaryQueue queue = session.createTemporaryQueue();
        session.createProducer(queue).send(session.createTextMessage("left behind"));
        System.out.println("CREATED " + queue.getQueueName());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}

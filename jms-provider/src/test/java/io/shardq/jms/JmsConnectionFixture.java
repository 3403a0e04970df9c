package io.shardq.jms;

import io.shardq.broker.BrokerConfig;
import io.shardq.broker.testing.TestDatabase;
import jakarta.jms.Connection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * A factory on the test's database and one started connection, closed after each test: what most
 * JMS tests begin with. {@link #config} adds settings.
 */
abstract class JmsConnectionFixture {
    ShardQConnectionFactory factory;
    Connection connection;

    /** Settings beyond the test database's (none by default). */
    BrokerConfig.Builder config(BrokerConfig.Builder base) {
        return base;
    }

    @BeforeEach
    void openConnection(TestDatabase db) throws Exception {
        factory = new ShardQConnectionFactory(config(db.brokerConfig()).build());
        connection = factory.createConnection();
        connection.start();
    }

    @AfterEach
    void closeConnection() throws Exception {
        connection.close();
        factory.close();
    }
}

package io.shardq.perf;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.OptionalLong;
import javax.sql.DataSource;

/**
 * ShardQ from SQL, what an application in another language does (docs/from-sql.md). Each producer
 * holds a connection of its own with autocommit off and sends each batch with one call of {@code
 * shardq.send_batch} (bytea bodies), then a {@code COMMIT}. Its consumers are, in {@code sql}, SQL
 * consumers: a connection each, one {@code shardq.receive} of a batch, then a {@code COMMIT}; in
 * {@code sql-send}, ShardQ's JMS consumers as in {@code shardq} (the SQL send path alone, set
 * against the JMS one). Each on a queue of its own.
 */
final class SqlSenderSystem implements QueueSystem {
    /** SQL producers and SQL consumers. */
    static final String NAME = "sql";
    /** SQL producers, JMS consumers. */
    static final String SEND_NAME = "sql-send";

    private final String name;
    private final String queue;
    private final ShardQSystem jms;
    private DataSource dataSource;

    SqlSenderSystem(boolean sqlConsumers) {
        this(io.shardq.broker.BrokerConfig::builder, sqlConsumers);
    }

    /**
     * @param baseConfig where ShardQ's JVM side (the queue's creation, the JMS consumers) connects:
     *     the environment's settings, or a test database's
     * @param sqlConsumers whether the consumers receive with {@code shardq.receive} (else JMS)
     */
    SqlSenderSystem(
            java.util.function.Supplier<io.shardq.broker.BrokerConfig.Builder> baseConfig, boolean sqlConsumers) {
        this.name = sqlConsumers ? NAME : SEND_NAME;
        this.queue = "perf." + name;
        this.jms = ShardQSystem.onQueue(baseConfig, queue);
        this.sqlConsumers = sqlConsumers;
    }

    private final boolean sqlConsumers;

    @Override
    public String name() {
        return name;
    }

    @Override
    public void setUp(DataSource dataSource, Settings settings) throws Exception {
        this.dataSource = dataSource;
        jms.setUp(dataSource, settings);
    }

    @Override
    public Producer producer() throws SQLException {
        Connection c = Ceiling2System.ownConnection(dataSource);
        try {
            return new SqlProducer(
                    c, queue, c.prepareStatement("SELECT cardinality(shardq.send_batch(?, ?::bytea[]))"));
        } catch (SQLException e) {
            c.close();
            throw e;
        }
    }

    @Override
    public Consumer consumer() throws Exception {
        if (!sqlConsumers) {
            return jms.consumer();
        }
        Connection c = Ceiling2System.ownConnection(dataSource);
        try {
            return new SqlConsumer(
                    c,
                    queue,
                    c.prepareStatement(
                            "SELECT message_id, body_bytes FROM shardq.receive(?, ?, wait => make_interval(secs => ?))"));
        } catch (SQLException e) {
            c.close();
            throw e;
        }
    }

    @Override
    public void measureStarts() {
        jms.measureStarts();
    }

    @Override
    public void measureEnds() {
        jms.measureEnds();
    }

    @Override
    public long backlog() throws Exception {
        return jms.backlog();
    }

    @Override
    public List<String> tables() {
        return jms.tables();
    }

    @Override
    public OptionalLong sqlReads() {
        return jms.sqlReads();
    }

    @Override
    public List<InnerStep> innerSteps() {
        return jms.innerSteps();
    }

    @Override
    public void tearDown() throws Exception {
        jms.tearDown();
    }

    /** send_batch, then COMMIT, on one connection; a failed batch is rolled back. */
    private record SqlProducer(Connection connection, String queue, PreparedStatement send) implements Producer {
        @Override
        public void sendBatch(List<byte[]> payloads) throws SQLException {
            try {
                Array bodies = connection.createArrayOf("bytea", payloads.toArray(new byte[0][]));
                send.setString(1, queue);
                send.setArray(2, bodies);
                try (ResultSet rs = send.executeQuery()) {
                    rs.next();
                    if (rs.getInt(1) != payloads.size()) {
                        throw new SQLException("shardq.send_batch sent " + rs.getInt(1) + " of " + payloads.size());
                    }
                }
                connection.commit();
            } catch (SQLException e) {
                throw rolledBack(connection, e);
            }
        }

        @Override
        public void close() throws SQLException {
            closeBoth(send, connection);
        }
    }

    /** receive, then COMMIT, on one connection (a consumer instance of its own); a failure rolls back. */
    private record SqlConsumer(Connection connection, String queue, PreparedStatement receive) implements Consumer {
        @Override
        public List<Delivery> receiveBatch(int max, java.time.Duration wait) throws SQLException {
            List<Delivery> got = new java.util.ArrayList<>(max);
            try {
                receive.setString(1, queue);
                receive.setInt(2, max);
                receive.setDouble(3, wait.toMillis() / 1000.0);
                try (ResultSet rs = receive.executeQuery()) {
                    while (rs.next()) {
                        got.add(new Delivery(rs.getString(1), Payloads.sentMicros(rs.getBytes(2))));
                    }
                }
                connection.commit();
                return got;
            } catch (SQLException e) {
                throw rolledBack(connection, e);
            }
        }

        @Override
        public void close() throws SQLException {
            closeBoth(receive, connection);
        }
    }

    /** {@code e}, after rolling {@code c}'s transaction back (a failure to do so added to it). */
    private static SQLException rolledBack(Connection c, SQLException e) {
        try {
            c.rollback();
        } catch (SQLException alsoFailed) {
            e.addSuppressed(alsoFailed);
        }
        return e;
    }

    private static void closeBoth(PreparedStatement statement, Connection c) throws SQLException {
        try {
            statement.close();
        } finally {
            c.close();
        }
    }
}

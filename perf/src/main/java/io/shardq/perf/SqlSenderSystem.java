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
 * ShardQ with its producers in SQL ({@code sql}): each producer holds a connection of its own
 * with autocommit off and sends each batch with one call of {@code shardq.send_batch} (bytea
 * bodies, which a JMS consumer receives as BytesMessages), then a {@code COMMIT}: what an
 * application in another language does (docs/from-sql.md). Its consumers are ShardQ's JMS
 * consumers, as in {@code shardq}, on a queue of its own ({@value #QUEUE}); a SQL receiver comes
 * with {@code shardq.receive}, which is not built yet.
 */
final class SqlSenderSystem implements QueueSystem {
    static final String NAME = "sql";
    static final String QUEUE = "perf.sql";

    private final ShardQSystem jms;
    private DataSource dataSource;

    SqlSenderSystem() {
        this(io.shardq.broker.BrokerConfig::builder);
    }

    /** @param baseConfig where the JMS consumers' ShardQ connects: the environment's settings, or a test database's */
    SqlSenderSystem(java.util.function.Supplier<io.shardq.broker.BrokerConfig.Builder> baseConfig) {
        this.jms = ShardQSystem.onQueue(baseConfig, QUEUE);
    }

    @Override
    public String name() {
        return NAME;
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
            return new SqlProducer(c, c.prepareStatement("SELECT cardinality(shardq.send_batch(?, ?::bytea[]))"));
        } catch (SQLException e) {
            c.close();
            throw e;
        }
    }

    @Override
    public Consumer consumer() throws Exception {
        return jms.consumer();
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
    private record SqlProducer(Connection connection, PreparedStatement send) implements Producer {
        @Override
        public void sendBatch(List<byte[]> payloads) throws SQLException {
            try {
                Array bodies = connection.createArrayOf("bytea", payloads.toArray(new byte[0][]));
                send.setString(1, QUEUE);
                send.setArray(2, bodies);
                try (ResultSet rs = send.executeQuery()) {
                    rs.next();
                    if (rs.getInt(1) != payloads.size()) {
                        throw new SQLException("shardq.send_batch sent " + rs.getInt(1) + " of " + payloads.size());
                    }
                }
                connection.commit();
            } catch (SQLException e) {
                try {
                    connection.rollback();
                } catch (SQLException alsoFailed) {
                    e.addSuppressed(alsoFailed);
                }
                throw e;
            }
        }

        @Override
        public void close() throws SQLException {
            try {
                send.close();
            } finally {
                connection.close();
            }
        }
    }
}

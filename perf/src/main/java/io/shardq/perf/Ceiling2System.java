package io.shardq.perf;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;

/**
 * The two-round-trip ceiling ({@code ceiling2}), what issue 25's table measured: each producer
 * holds a connection of its own with autocommit off and, per batch, sends one multi-row INSERT
 * (pgjdbc sends the {@code BEGIN} with it) and then a {@code COMMIT}: two waits for the server per
 * batch where {@link CeilingSystem} waits once. No dequeue. Issue 25's end-to-end ratios are
 * against this one's rate.
 */
final class Ceiling2System extends CeilingSystem {
    static final String NAME = "ceiling2";

    private DataSource dataSource;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void setUp(DataSource dataSource, Settings settings) throws Exception {
        this.dataSource = dataSource;
        super.setUp(dataSource, settings);
    }

    /** A producer on a connection of its own, held until it is closed. */
    @Override
    public Producer producer() throws SQLException {
        return new OwnConnection(ownConnection(dataSource), table);
    }

    /** A connection of the producer's own from the pool, autocommit off (closed again if that fails). */
    static Connection ownConnection(DataSource dataSource) throws SQLException {
        Connection c = dataSource.getConnection();
        try {
            c.setAutoCommit(false);
            return c;
        } catch (SQLException e) {
            c.close();
            throw e;
        }
    }

    /** INSERT, then COMMIT, on one connection; a failed batch is rolled back. */
    private static final class OwnConnection implements Producer {
        private final Connection connection;
        private final ReferenceTable table;
        private PreparedStatement insert;
        private int rows;

        OwnConnection(Connection connection, ReferenceTable table) {
            this.connection = connection;
            this.table = table;
        }

        @Override
        public void sendBatch(List<byte[]> payloads) throws SQLException {
            try {
                if (insert == null || rows != payloads.size()) {
                    closeStatement();
                    insert = connection.prepareStatement(table.insertSql(payloads.size()));
                    rows = payloads.size();
                }
                for (int i = 0; i < payloads.size(); i++) {
                    insert.setBytes(i + 1, payloads.get(i));
                }
                insert.executeUpdate();
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

        private void closeStatement() throws SQLException {
            if (insert != null) {
                insert.close();
                insert = null;
            }
        }

        @Override
        public void close() throws SQLException {
            try {
                closeStatement();
            } finally {
                connection.close();
            }
        }
    }
}

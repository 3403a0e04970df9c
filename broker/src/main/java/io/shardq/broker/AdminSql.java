package io.shardq.broker;

import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import io.shardq.broker.internal.SqlErrors;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import javax.sql.DataSource;

/**
 * Runs one {@code shardq.*} administration function on a pooled connection, for {@link Admin} and
 * its parts ({@link CacheAdmin}, {@link ClusterView}, {@link GrantAdmin}, {@link
 * SubscriptionAdmin}). Arguments are always bind parameters (a null is bound as SQL NULL); the
 * function's own errors are translated once, naming {@code what} was being done.
 */
final class AdminSql {
    private final DataSource dataSource;

    AdminSql(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    DataSource dataSource() {
        return dataSource;
    }

    /** Runs {@code query} (one row, one column) and returns its number, or 0 when it returns none. */
    long call(Query query, String what, Object... args) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(query))) {
            for (int i = 0; i < args.length; i++) {
                Object a = args[i];
                if (a == null) {
                    ps.setNull(i + 1, Types.NULL);
                } else {
                    ps.setObject(i + 1, a);
                }
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                Object v = rs.getObject(1);
                return v instanceof Number n ? n.longValue() : 0;
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, what);
        }
    }
}

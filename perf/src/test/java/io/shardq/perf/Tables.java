package io.shardq.perf;

import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** Catalog look-ups for tests. */
final class Tables {
    private Tables() {}

    static boolean exists(TestDatabase db, String qualifiedName) throws SQLException {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement("select to_regclass(?) is not null")) {
            ps.setString(1, qualifiedName);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    static String persistence(TestDatabase db, String qualifiedName) throws SQLException {
        try (Connection c = db.connect();
                PreparedStatement ps =
                        c.prepareStatement("select relpersistence from pg_class where oid = to_regclass(?)")) {
            ps.setString(1, qualifiedName);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }
}

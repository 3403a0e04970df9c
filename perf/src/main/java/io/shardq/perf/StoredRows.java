package io.shardq.perf;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * What a destination's rows cost to store, read at the end of a measured window from the rows
 * still there (slices already retired are gone, so this is an average per row, not a total):
 * {@code pg_column_size} of the whole row (header fields, the JMS header bytes, the body, the
 * subscriber bitmap; tuple header and line pointer not included) and of the bitmap alone.
 *
 * @param rows rows counted
 * @param bytesPerRow average {@code pg_column_size(row)}, NaN when there were none
 * @param bitmapBytes average {@code octet_length(subscribers)}, 0 for a queue's rows (null bitmap)
 */
record StoredRows(long rows, double bytesPerRow, double bitmapBytes) {
    static final StoredRows UNKNOWN = new StoredRows(-1, Double.NaN, Double.NaN);

    /** As {@link #of(DataSource, long)} for {@code destination} of {@code factory}'s broker; UNKNOWN when not found. */
    static StoredRows of(DataSource ds, io.shardq.jms.ShardQConnectionFactory factory, String destination) {
        try {
            return of(ds, factory.broker().admin().require(destination).id());
        } catch (Exception e) {
            return UNKNOWN;
        }
    }

    /** Reads the averages of a ShardQ destination's table {@code shardq.m_<id>} (all its slices). */
    static StoredRows of(DataSource ds, long destinationId) {
        String sql = "select count(*), avg(pg_column_size(m.*)), coalesce(avg(octet_length(m.subscribers)), 0)"
                + " from shardq.m_" + destinationId + " m";
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            long rows = rs.getLong(1);
            return new StoredRows(rows, rows == 0 ? Double.NaN : rs.getDouble(2), rs.getDouble(3));
        } catch (SQLException e) {
            return UNKNOWN;
        }
    }
}

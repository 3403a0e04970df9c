package io.shardq.broker.shard;

import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;

/**
 * A per-shard column of {@code shardq.shard} that tests read by queue name, one value a shard in
 * shard number order. The column names are these constants' and nothing else: a caller picks a
 * constant, never text, and the queue name is a bind parameter.
 */
enum ShardColumn {
    NEXT_SEQ("next_seq"),
    /** NULL while the shard is not draining. */
    DRAIN_HEAD("drain_head"),
    /** NULL while no instance owns the shard's enqueues. */
    OWNER_INSTANCE("owner_instance");

    private final String sql;

    ShardColumn(String column) {
        this.sql = "SELECT s." + column + " FROM shardq.shard s"
                + " JOIN shardq.destination d ON d.id = s.destination_id WHERE d.name = ? ORDER BY s.shard_no";
    }

    /** Each shard's value (null where the column is NULL), by shard number. */
    List<Long> values(TestDatabase db, String queue) throws Exception {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, queue);
            List<Long> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long v = rs.getLong(1);
                    out.add(rs.wasNull() ? null : v);
                }
            }
            return out;
        }
    }

    /** Each shard's value (-1 where the column is NULL), by shard number. */
    long[] longs(TestDatabase db, String queue) throws Exception {
        return values(db, queue).stream().mapToLong(v -> v == null ? -1 : v).toArray();
    }
}

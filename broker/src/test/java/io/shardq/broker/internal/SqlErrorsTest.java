package io.shardq.broker.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import java.sql.BatchUpdateException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/** Error texts name the problem without SQL text or parameter values, and stay short. */
class SqlErrorsTest {

    @Test
    void aBatchFailure_isReportedWithTheServersReason_notTheStatement() {
        String hexBody = "\\\\x" + "41".repeat(100_000);
        BatchUpdateException batch = new BatchUpdateException(
                "Batch entry 0 INSERT INTO shardq.\"m_1_0_0\" (shard_no, ...) VALUES (0, '" + hexBody
                        + "') was aborted",
                "23505",
                new int[0]);
        batch.setNextException(new PSQLException(new ServerErrorMessage(
                "SERROR\0VERROR\0C23505\0Mduplicate key value violates unique constraint \"m_1_0_0_pkey\"\0")));
        ShardQException e = SqlErrors.translate(batch, "commit");
        assertThat(e.getMessage())
                .isEqualTo("commit failed: duplicate key value violates unique constraint \"m_1_0_0_pkey\"")
                .doesNotContain("INSERT")
                .doesNotContain("4141");
        assertThat(e.kind()).isEqualTo(ErrorKind.DATABASE);
    }

    @Test
    void aLongServerMessage_isCut() {
        SQLException e = new PSQLException(
                new ServerErrorMessage("SERROR\0VERROR\0C22023\0Minvalid value " + "y".repeat(10_000) + "\0"));
        assertThat(SqlErrors.translate(e, "x").getMessage()).hasSizeLessThanOrEqualTo(SqlErrors.MAX_DETAIL + 40);
    }

    @Test
    void aBatchWithoutServerDetail_saysSoWithoutTheStatement() {
        BatchUpdateException batch = new BatchUpdateException(
                "Batch entry 0 INSERT INTO t VALUES ('secret') was aborted", "08006", new int[0]);
        ShardQException e = SqlErrors.translate(batch, "commit");
        assertThat(e.getMessage()).doesNotContain("secret").contains("08006");
        assertThat(e.kind()).isEqualTo(ErrorKind.CONNECTION);
    }

    /** A send into a table dropped under it (a closed temporary destination): never the raw SQL error. */
    @Test
    void anUndefinedTable_isAnUnknownDestination_withoutTheRelationsName() {
        SQLException e = new PSQLException(
                new ServerErrorMessage("SERROR\0VERROR\0C42P01\0Mrelation \"shardq.m_17_0_3\" does not exist\0"));
        ShardQException t = SqlErrors.translate(e, "sending to tmp.1.abc");
        assertThat(t.kind()).isEqualTo(ErrorKind.UNKNOWN_DESTINATION);
        assertThat(t.getMessage())
                .startsWith("sending to tmp.1.abc failed: the destination no longer exists")
                .doesNotContain("relation")
                .doesNotContain("m_17");
    }

    @Test
    void anUndefinedCatalogTable_isNotAnUnknownDestination_andKeepsItsName() {
        SQLException e = new PSQLException(
                new ServerErrorMessage("SERROR\0VERROR\0C42P01\0Mrelation \"shardq.instance\" does not exist\0"));
        ShardQException t = SqlErrors.translate(e, "registering the instance");
        assertThat(t.kind()).isNotEqualTo(ErrorKind.UNKNOWN_DESTINATION);
        assertThat(t.getMessage()).contains("shardq.instance").doesNotContain("destination no longer exists");
    }

    /** The kind comes from the error's fields (SCHEMA, TABLE, COLUMN, CONSTRAINT), not from its text. */
    @Test
    void theKind_comesFromTheErrorsFields_notItsMessage() {
        assertThat(kind("42704", "no such thing", "shardq", "kv_cache", null, null))
                .isEqualTo(ErrorKind.UNKNOWN_CACHE);
        assertThat(kind("42704", "cache \"c\" does not exist", null, null, null, null))
                .as("a text that reads like a cache's is not enough")
                .isEqualTo(ErrorKind.UNKNOWN_DESTINATION);
        assertThat(kind("42704", "x", "shardq", "subscription", null, null)).isEqualTo(ErrorKind.UNKNOWN_DESTINATION);
        assertThat(kind("42710", "x", "shardq", "kv_cache", null, null)).isEqualTo(ErrorKind.CACHE_EXISTS);
        assertThat(kind("42710", "x", "shardq", "destination", null, null)).isEqualTo(ErrorKind.DESTINATION_EXISTS);
        assertThat(kind("22023", "x", "shardq", "destination", "name", null)).isEqualTo(ErrorKind.INVALID_NAME);
        assertThat(kind("22023", "x", "shardq", "kv_cache", "name", null)).isEqualTo(ErrorKind.INVALID_NAME);
        assertThat(kind("22023", "destination name \"x y\" is invalid", null, null, null, null))
                .isEqualTo(ErrorKind.INVALID_ARGUMENT);
        assertThat(kind("22023", "x", "shardq", "subscription", "name", null)).isEqualTo(ErrorKind.INVALID_ARGUMENT);
        assertThat(kind("23514", "x", "shardq", "shard", null, "shard_draining_frozen"))
                .isEqualTo(ErrorKind.ROLLED_BACK);
        assertThat(kind("23514", "shard_draining_frozen", "shardq", "shard", null, "other_check"))
                .isEqualTo(ErrorKind.DATABASE);
    }

    private static ErrorKind kind(
            String state, String message, String schema, String table, String column, String constraint) {
        StringBuilder m = new StringBuilder("SERROR\0VERROR\0C" + state + "\0M" + message + "\0");
        if (schema != null) {
            m.append('s').append(schema).append('\0');
        }
        if (table != null) {
            m.append('t').append(table).append('\0');
        }
        if (column != null) {
            m.append('c').append(column).append('\0');
        }
        if (constraint != null) {
            m.append('n').append(constraint).append('\0');
        }
        PSQLException e = new PSQLException(new ServerErrorMessage(m.toString()));
        assertThat(SqlErrors.isShardDraining(e))
                .isEqualTo("shard_draining_frozen".equals(constraint) && state.equals("23514"));
        return SqlErrors.translate(e, "x").kind();
    }
}

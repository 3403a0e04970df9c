package io.shardq.broker.testing;

/** SQL helpers for tests. */
public final class PgSql {
    private PgSql() {}

    /** Turns JDBC {@code ?} placeholders into PREPARE's {@code $1, $2, ...}. */
    public static String numbered(String sql) {
        StringBuilder out = new StringBuilder();
        int n = 0;
        for (char ch : sql.toCharArray()) {
            if (ch == '?') {
                out.append('$').append(++n);
            } else {
                out.append(ch);
            }
        }
        return out.toString();
    }
}

package io.shardq.perf;

import java.util.Locale;

/**
 * After the last stage: did the application rows change exactly as many times as the
 * transactions that changed them committed, and does the queue hold exactly what was sent and not
 * received? Counts cover the whole run, warm-ups included. A difference means a transaction's
 * SQL and its messages did not commit together.
 */
record ApplicationCheck(
        long accountUpdates,
        long expectedAccountUpdates,
        long auditRows,
        long expectedAuditRows,
        long backlog,
        long expectedBacklog) {

    boolean consistent() {
        return accountUpdates == expectedAccountUpdates && auditRows == expectedAuditRows && backlog == expectedBacklog;
    }

    /** One line for the text report. */
    String describe() {
        return String.format(
                Locale.ROOT,
                "%s: accounts updates %,d (committed update-account steps %,d), audit rows %,d (committed"
                        + " insert-audit steps %,d), queue backlog %,d (prefill + sent - received %,d)",
                consistent() ? "consistent" : "INCONSISTENT",
                accountUpdates,
                expectedAccountUpdates,
                auditRows,
                expectedAuditRows,
                backlog,
                expectedBacklog);
    }
}

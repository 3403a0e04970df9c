package io.shardq.perf;

import java.util.Locale;

/**
 * WAL written between two {@code pg_current_wal_lsn()} readings. An LSN is printed by PostgreSQL
 * as two hexadecimal halves of a 64-bit byte position, {@code "16/B374D848"}; the difference of
 * two positions is what {@code pg_wal_lsn_diff(end, start)} returns. The WAL is the whole
 * server's, so other activity on it (autovacuum, checkpoints' full-page images) counts too.
 */
record WalDelta(long bytes) {

    /** The byte position of an LSN in PostgreSQL's text form. */
    static long parseLsn(String lsn) {
        int slash = lsn == null ? -1 : lsn.indexOf('/');
        if (slash < 1 || slash == lsn.length() - 1) {
            throw new IllegalArgumentException("LSN \"" + lsn + "\" is invalid: expected hex/hex, e.g. 16/B374D848");
        }
        try {
            long hi = Long.parseLong(lsn.substring(0, slash), 16);
            long lo = Long.parseLong(lsn.substring(slash + 1), 16);
            if (hi > 0xFFFF_FFFFL || lo > 0xFFFF_FFFFL) {
                throw new NumberFormatException("half above 32 bits");
            }
            return (hi << 32) | lo;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("LSN \"" + lsn + "\" is invalid: expected hex/hex, e.g. 16/B374D848");
        }
    }

    /** The WAL written from {@code startLsn} to {@code endLsn}. */
    static WalDelta between(String startLsn, String endLsn) {
        return new WalDelta(parseLsn(endLsn) - parseLsn(startLsn));
    }

    /** WAL bytes per message; NaN when no message moved. */
    double bytesPerMessage(long messages) {
        return Rates.perMessage(bytes, messages);
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%,d WAL bytes", bytes);
    }
}

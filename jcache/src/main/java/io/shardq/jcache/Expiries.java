package io.shardq.jcache;

import java.util.function.Supplier;
import javax.cache.expiry.Duration;

/** JCache expiry durations as instants of the manager's clock, and the engine TTL for them. */
final class Expiries {
    /** How long the engine keeps a row past its JCache expiry, so that the expiry is observed. */
    static final java.time.Duration GRACE = java.time.Duration.ofMinutes(1);
    /** What a null duration means: leave the entry's expiry as it is. */
    static final long UNCHANGED = -1;

    private Expiries() {}

    /** The expiry a policy method gives, as epoch ms: ETERNAL, {@code now} for zero, or UNCHANGED for null. */
    static long at(Supplier<Duration> which, long now) {
        Duration d;
        try {
            d = which.get();
        } catch (RuntimeException e) {
            return UNCHANGED; // as the reference implementation: a failing policy changes nothing
        }
        if (d == null) {
            return UNCHANGED;
        }
        if (d.isEternal()) {
            return Stored.ETERNAL;
        }
        if (d.isZero()) {
            return now;
        }
        return d.getAdjustedTime(now);
    }

    /** The engine's TTL for an entry expiring at {@code at}: that instant plus the grace period; null: none. */
    static java.time.Duration ttl(long at, long now) {
        return at == Stored.ETERNAL
                ? null
                : java.time.Duration.ofMillis(at - now).plus(GRACE);
    }
}

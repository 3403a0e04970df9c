package io.shardq.broker.kv;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One cache's entries as this instance last read them from PostgreSQL: a Caffeine cache bounded
 * by weight (encoded key and value bytes), keyed by the key's 64-bit hash with the key bytes kept
 * to verify a hit (a collision is a miss, and the two keys share one slot), so a NOTIFY naming
 * hashes finds its entries without an index. Values are kept encoded: each hit decodes a copy, so
 * no caller can alter what another one reads.
 *
 * <p><b>The fill race.</b> A read that missed fills the entry it read from the database, but an
 * invalidation may have arrived between its database read and its fill (the value it read is then
 * perhaps older than the commit the invalidation stands for). So an invalidation increments
 * {@link #epoch} and then removes its entries, and a fill reads the epoch before its database read
 * and installs with {@code compute(h, (k, old) -> epoch == e0 ? fresh : old)}. Both orders are
 * safe: if the increment comes before the compute, the compute sees a new epoch and keeps what is
 * there (the invalidation's removal, which follows, clears it); if it comes after, the entry is in
 * the map when the removal runs (compute and remove of one key are serialised by the map), so the
 * removal takes it out. A read whose epoch read follows the increment started its database read
 * after the commit the invalidation announces, so it reads the new value.
 *
 * <p><b>Unsettled keys</b> were written on an application's connection, whose commit this
 * instance cannot see: they are not filled until a NOTIFY naming them (the writer's own, which
 * the transaction sends and PostgreSQL delivers at commit) or a whole-cache invalidation arrives.
 */
final class NearCache {
    /** A near entry: the key bytes (to verify a hit), the encoded value, its expiry (ms, or MAX_VALUE). */
    record Entry(byte[] key, byte[] value, long expiresAt) {}

    private static final int OVERHEAD = 64;

    private final Cache<Long, Entry> entries;
    private final AtomicLong epoch = new AtomicLong();
    private final Set<Long> unsettled = ConcurrentHashMap.newKeySet();
    /** Test hook: runs between a fill's database read and its install. */
    volatile Runnable beforeFill;

    private final java.util.function.BooleanSupplier filling;

    /** @param filling false while fills must be refused (see {@link NearCaches#fillsAfter}) */
    NearCache(long maxBytes, java.util.function.BooleanSupplier filling) {
        this.filling = filling;
        this.entries = Caffeine.newBuilder()
                .maximumWeight(maxBytes)
                .weigher((Long h, Entry e) -> e.key().length + e.value().length + OVERHEAD)
                .executor(Runnable::run)
                .build();
    }

    /** A stable 64-bit hash of the key bytes (FNV-1a, then MurmurHash3's finaliser): the same in every JVM. */
    static long hash64(byte[] b) {
        long h = 0xcbf29ce484222325L;
        for (byte x : b) {
            h = (h ^ (x & 0xff)) * 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        return h ^ (h >>> 33);
    }

    /** The live value of {@code key}, or null (an expired entry is dropped, never returned). */
    byte[] get(ByteKey key, long nowMs) {
        long h = hash64(key.bytes());
        Entry e = entries.getIfPresent(h);
        if (e == null || !Arrays.equals(e.key(), key.bytes())) {
            return null;
        }
        if (e.expiresAt() <= nowMs) {
            entries.asMap().remove(h, e);
            return null;
        }
        return e.value();
    }

    /** Read before the database read of a fill. */
    long epoch() {
        return epoch.get();
    }

    /** Installs what a read found, unless an invalidation came since {@code e0} was read (class comment). */
    void fill(ByteKey key, byte[] value, long expiresAt, long e0) {
        long h = hash64(key.bytes());
        if (unsettled.contains(h) || !filling.getAsBoolean()) {
            return;
        }
        Runnable hook = beforeFill;
        if (hook != null) {
            hook.run();
        }
        Entry fresh = new Entry(key.bytes(), value, expiresAt);
        entries.asMap().compute(h, (k, old) -> epoch.get() == e0 && !unsettled.contains(h) ? fresh : old);
    }

    /** Drops the entries of these hashes; null drops every entry. Epoch first (class comment). */
    void invalidate(long[] hashes) {
        epoch.incrementAndGet();
        if (hashes == null) {
            entries.invalidateAll();
            return;
        }
        for (long h : hashes) {
            entries.invalidate(h);
        }
    }

    /** A NOTIFY arrived: these keys' writers committed (null: the whole cache). */
    void notified(long[] hashes) {
        if (hashes == null) {
            unsettled.clear();
        } else {
            for (long h : hashes) {
                unsettled.remove(h);
            }
        }
        invalidate(hashes);
    }

    /** Written on an application's connection: not filled until a NOTIFY names them (class comment). */
    void unsettle(long[] hashes) {
        if (hashes == null) {
            invalidate(null);
            return;
        }
        for (long h : hashes) {
            unsettled.add(h);
        }
        invalidate(hashes);
    }

    long size() {
        return entries.estimatedSize();
    }
}

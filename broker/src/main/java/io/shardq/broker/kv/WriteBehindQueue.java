package io.shardq.broker.kv;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One cache's write-behind queue in this instance: the writes accepted by {@link KvWriteBehind}
 * and not yet committed, one per key (a later write of a key replaces the pending one: writes
 * coalesce), bounded at {@code maxPending} keys. {@link #flush} writes them as group puts and
 * removals; a flush that fails puts its writes back (a newer pending write of a key wins) and
 * throws, so nothing accepted is dropped while the instance lives.
 *
 * <p>Reads of this instance see pending writes first ({@link #lookup}), also while they are being
 * flushed ({@code inFlight}), so an instance reads its own accepted writes.
 *
 * <p>Threading: {@code lock} guards the maps and counters; {@code flushing} lets one flush run at
 * a time (the flusher thread's, or a caller's {@link #flush}).
 */
final class WriteBehindQueue {
    private static final Logger LOG = LoggerFactory.getLogger(WriteBehindQueue.class);

    /** A pending write: a value (null: a removal), its expiry (epoch ms, null: none) and bucket. */
    record Pending(byte[] value, Long expires, long bucket) {}

    private final StoredKvCache<byte[], byte[]> writer;
    private final String name;
    private final int maxPending;
    private final long blockMillis;
    private final Runnable full;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition room = lock.newCondition();
    private final ReentrantLock flushing = new ReentrantLock();
    private LinkedHashMap<ByteKey, Pending> pending = new LinkedHashMap<>();
    private Map<ByteKey, Pending> inFlight = Map.of();
    private volatile int size;
    private boolean closed;
    private long failures;
    private String lastError;

    /**
     * @param writer an unbound view of the cache (bytes in, bytes out) the flushes write through
     * @param full told when the queue holds a batch or more (wakes the flusher)
     */
    WriteBehindQueue(StoredKvCache<byte[], byte[]> writer, int maxPending, long blockMillis, Runnable full) {
        this.writer = writer;
        this.name = writer.name();
        this.maxPending = Math.max(1, maxPending);
        this.blockMillis = Math.max(0, blockMillis);
        this.full = full;
    }

    /** Pending and in-flight writes (0 when there is nothing to flush or read from here). */
    int size() {
        return size;
    }

    /** The pending (or in-flight) write of {@code k}, or null. */
    Pending lookup(ByteKey k) {
        if (size == 0) {
            return null;
        }
        lock.lock();
        try {
            Pending p = pending.get(k);
            return p != null ? p : inFlight.get(k);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Accepts {@code writes}, waiting up to the block time while the queue has no room for their
     * new keys (back-pressure); {@code RESOURCE_EXHAUSTED} naming the cache, the bound and the last
     * flush error when it stays full. A batch larger than the bound is accepted into an empty queue.
     */
    void accept(Map<ByteKey, Pending> writes) {
        boolean wake;
        lock.lock();
        try {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(blockMillis);
            while (true) {
                if (closed) {
                    throw new ShardQException(
                            ErrorKind.ILLEGAL_STATE,
                            "cache \"" + name + "\": the instance is closed; its write-behind queue takes no writes");
                }
                int fresh = 0;
                for (ByteKey k : writes.keySet()) {
                    if (!pending.containsKey(k)) {
                        fresh++;
                    }
                }
                if (pending.size() + fresh <= maxPending || pending.isEmpty()) {
                    break;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new ShardQException(
                            ErrorKind.RESOURCE_EXHAUSTED,
                            "cache \"" + name + "\": the write-behind queue is full (" + pending.size()
                                    + " pending writes, shardq.kv.write-behind-max-pending " + maxPending
                                    + ") and did not drain within " + blockMillis
                                    + " ms (shardq.kv.write-behind-block-ms); the write was not accepted"
                                    + (lastError == null ? "" : "; the last flush failed: " + lastError));
                }
                full.run();
                try {
                    room.awaitNanos(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new ShardQException(
                            ErrorKind.ILLEGAL_STATE,
                            "cache \"" + name + "\": interrupted while waiting for room in the write-behind queue;"
                                    + " the write was not accepted",
                            e);
                }
            }
            pending.putAll(writes);
            size = pending.size() + inFlight.size();
            wake = pending.size() >= writer.maxBatchSize();
        } finally {
            lock.unlock();
        }
        if (wake) {
            full.run();
        }
    }

    /**
     * Writes every write accepted before this call: when it returns they are committed (and other
     * instances' near caches invalidated). Throws, leaving them queued, when the database refused
     * them; the flusher tries again.
     */
    void flush() {
        flushing.lock();
        try {
            Map<ByteKey, Pending> batch;
            lock.lock();
            try {
                if (pending.isEmpty()) {
                    return;
                }
                batch = pending;
                inFlight = batch;
                pending = new LinkedHashMap<>();
            } finally {
                lock.unlock();
            }
            try {
                write(batch);
            } catch (ShardQException e) {
                if (e.kind() != ErrorKind.UNKNOWN_CACHE) {
                    putBack(batch, e);
                    throw e;
                }
                // the cache was dropped: its pending writes have nowhere to go
                LOG.warn("cache \"{}\" was dropped: {} write-behind writes to it were discarded", name, batch.size());
            } catch (RuntimeException e) {
                putBack(batch, e);
                throw e;
            }
            lock.lock();
            try {
                inFlight = Map.of();
                size = pending.size();
                lastError = null;
                room.signalAll();
            } finally {
                lock.unlock();
            }
        } finally {
            flushing.unlock();
        }
    }

    private void putBack(Map<ByteKey, Pending> batch, RuntimeException e) {
        lock.lock();
        try {
            LinkedHashMap<ByteKey, Pending> back = new LinkedHashMap<>(batch);
            back.putAll(pending); // accepted during the flush: newer
            pending = back;
            inFlight = Map.of();
            size = pending.size();
            failures++;
            lastError = String.valueOf(e.getMessage());
        } finally {
            lock.unlock();
        }
    }

    /** Puts (ascending hash order) in group puts' statements, then removals; expired puts remove. */
    private void write(Map<ByteKey, Pending> batch) {
        KvDefinition d = writer.definition();
        long now = writer.now();
        List<KvRows.Row> puts = new ArrayList<>();
        List<ByteKey> removals = new ArrayList<>();
        for (Map.Entry<ByteKey, Pending> e : batch.entrySet()) {
            Pending p = e.getValue();
            if (p.value() == null || (p.expires() != null && p.expires() <= now)) {
                removals.add(e.getKey()); // an expired put: the key has no live value, as if removed
            } else {
                puts.add(new KvRows.Row(e.getKey(), p.value(), p.expires(), p.bucket()));
            }
        }
        if (!puts.isEmpty()) {
            puts.sort(KvRows.BY_HASH);
            writer.putRows(d, puts, writer.maxBatchSize());
        }
        if (!removals.isEmpty()) {
            writer.removeKeys(d, removals);
        }
    }

    /** Flush failures since the instance started. */
    long failures() {
        lock.lock();
        try {
            return failures;
        } finally {
            lock.unlock();
        }
    }

    /** Takes no more writes; returns how many are still pending (lost if the instance stops now). */
    int close() {
        lock.lock();
        try {
            closed = true;
            room.signalAll();
            return pending.size();
        } finally {
            lock.unlock();
        }
    }

    String lastError() {
        lock.lock();
        try {
            return lastError;
        } finally {
            lock.unlock();
        }
    }

    String name() {
        return name;
    }
}

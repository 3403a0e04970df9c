package io.shardq.broker.kv;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The read-through loads of one cache in flight in this instance: the first caller of a missing
 * key runs the load (the leader: across instances, see {@code KvLoader.loadAcross}), the others wait
 * on its future rather than on the database. The future is removed before it completes, so a
 * caller arriving after the end, success or failure, starts a load of its own; every caller that
 * joined gets the leader's value or the leader's exception. Not API.
 */
final class KvLoads {
    interface Load {
        byte[] run();
    }

    private final Map<ByteKey, CompletableFuture<byte[]>> inFlight = new ConcurrentHashMap<>();
    private final AtomicInteger waiting = new AtomicInteger();

    /**
     * The value {@code load} gives, run once for all concurrent callers of {@code key}; a waiter
     * gives up after {@code waitMs} (the leader's own waits are bounded, this is the backstop).
     */
    byte[] load(String cache, ByteKey key, Load load, long waitMs) {
        CompletableFuture<byte[]> mine = new CompletableFuture<>();
        CompletableFuture<byte[]> leader = inFlight.putIfAbsent(key, mine);
        if (leader == null) {
            byte[] v;
            try {
                v = load.run();
            } catch (RuntimeException | Error e) {
                inFlight.remove(key, mine);
                mine.completeExceptionally(e);
                throw e;
            }
            inFlight.remove(key, mine);
            mine.complete(v);
            return v;
        }
        waiting.incrementAndGet();
        try {
            return leader.get(waitMs, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new ShardQException(ErrorKind.DATABASE, "cache \"" + cache + "\": loading failed: " + cause, cause);
        } catch (TimeoutException e) {
            throw new KvLoadException(
                    cache, key.hash(), "waited " + waitMs + " ms for this instance's load of the key", true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ShardQException(
                    ErrorKind.ILLEGAL_STATE, "cache \"" + cache + "\": interrupted while waiting for a load", e);
        } finally {
            waiting.decrementAndGet();
        }
    }

    /** Test hook: callers waiting on another caller's load. */
    int waiting() {
        return waiting.get();
    }
}

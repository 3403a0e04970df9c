package io.shardq.broker.kv;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;

/**
 * A read-through load ({@link KvCache#get(Object, java.util.function.Function)}) that failed where
 * the caller cannot see the loader's own exception: the loader failed in another instance, or the
 * load (the loader, or the wait for another caller's load) took longer than {@code
 * shardq.kv.load-timeout-ms}. The next call tries again.
 */
public final class KvLoadException extends ShardQException {
    private final String cache;
    private final int keyHash;
    private final String loaderMessage;
    private final boolean timedOut;

    public KvLoadException(String cache, int keyHash, String loaderMessage, boolean timedOut) {
        super(
                ErrorKind.ILLEGAL_STATE,
                "cache \"" + cache + "\": loading the key with hash " + keyHash
                        + (timedOut ? " timed out: " : " failed: ") + loaderMessage);
        this.cache = cache;
        this.keyHash = keyHash;
        this.loaderMessage = loaderMessage;
        this.timedOut = timedOut;
    }

    public String cache() {
        return cache;
    }

    /** The key's lock hash ({@code Arrays.hashCode} of its encoded bytes), as in the database's locks. */
    public int keyHash() {
        return keyHash;
    }

    /** The loader's message, or what timed out. */
    public String loaderMessage() {
        return loaderMessage;
    }

    public boolean timedOut() {
        return timedOut;
    }
}

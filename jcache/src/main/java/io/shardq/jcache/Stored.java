package io.shardq.jcache;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * What this layer stores as a ShardQ value: the JCache expiry (8 bytes, epoch ms; {@link #ETERNAL}
 * for none) followed by the value's codec bytes. The expiry is kept here, not only as the engine's
 * TTL, because JCache needs it back: {@code CreatedExpiryPolicy} keeps an entry's expiry on update,
 * and an expired entry must be seen to fire an EXPIRED event. The engine's TTL is set to the same
 * instant plus {@link ShardQCache#GRACE}, so the row outlives its JCache expiry long enough for the
 * layer to see it expired, and its partition is still dropped whole afterwards.
 */
record Stored(byte[] raw, long expiresAt) {
    static final long ETERNAL = Long.MAX_VALUE;

    static byte[] wrap(byte[] value, long expiresAt) {
        return ByteBuffer.allocate(8 + value.length)
                .putLong(expiresAt)
                .put(value)
                .array();
    }

    static Stored of(byte[] raw) {
        if (raw.length < 8) {
            throw new IllegalArgumentException("a stored entry of " + raw.length
                    + " bytes is too short to be a JCache entry (was it written without the JCache layer?)");
        }
        return new Stored(raw, ByteBuffer.wrap(raw).getLong());
    }

    byte[] value() {
        return Arrays.copyOfRange(raw, 8, raw.length);
    }

    boolean expired(long now) {
        return expiresAt <= now;
    }
}

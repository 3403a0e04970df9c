package io.shardq.jcache;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * What this layer stores as a ShardQ value: a 2-byte mark ({@code 'J' 1}: JCache, format 1), the
 * JCache expiry (8 bytes, epoch ms; {@link #ETERNAL} for none), then the value's codec bytes. The
 * expiry is kept here, not only as the engine's TTL, because JCache needs it back: {@code
 * CreatedExpiryPolicy} keeps an entry's expiry on update, and an expired entry must be seen to
 * fire an EXPIRED event. The engine's TTL is set to the same instant plus {@link Expiries#GRACE},
 * so the row outlives its JCache expiry long enough for the layer to see it expired, and its
 * partition is still dropped whole afterwards. The mark keeps a value written another way (the
 * CLI, an application's own {@code KvCache}) from being read as an expiry: such an entry is
 * refused naming the problem, never taken for expired and removed.
 */
record Stored(byte[] raw, long expiresAt) {
    static final long ETERNAL = Long.MAX_VALUE;
    private static final byte MARK = 'J';
    private static final byte FORMAT = 1;
    private static final int HEADER = 10;

    static byte[] wrap(byte[] value, long expiresAt) {
        return ByteBuffer.allocate(HEADER + value.length)
                .put(MARK)
                .put(FORMAT)
                .putLong(expiresAt)
                .put(value)
                .array();
    }

    static Stored of(byte[] raw) {
        if (raw.length < HEADER || raw[0] != MARK || raw[1] != FORMAT) {
            throw new IllegalArgumentException("a stored value of " + raw.length + " bytes was not written"
                    + " through JCache (no JCache header): write this cache through JCache only, or read it"
                    + " with ShardQ's KvCache");
        }
        return new Stored(raw, ByteBuffer.wrap(raw, 2, 8).getLong());
    }

    byte[] value() {
        return Arrays.copyOfRange(raw, HEADER, raw.length);
    }

    boolean expired(long now) {
        return expiresAt <= now;
    }
}

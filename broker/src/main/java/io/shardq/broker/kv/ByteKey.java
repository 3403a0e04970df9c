package io.shardq.broker.kv;

import java.util.Arrays;

/**
 * An encoded key with value equality. {@link #hash} is the key's advisory-lock hash: stable across
 * JVMs and versions ({@link Arrays#hashCode(byte[])} is specified), since every instance must take
 * the same lock for the same key.
 */
record ByteKey(byte[] bytes, int hash) {
    static ByteKey of(byte[] bytes) {
        return new ByteKey(bytes, Arrays.hashCode(bytes));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ByteKey b && hash == b.hash && Arrays.equals(bytes, b.bytes);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return bytes.length + " bytes";
    }
}

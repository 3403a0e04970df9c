package io.shardq.broker.kv;

/** The engine's tests' way to the package-private side of a {@link KvCache} (its one implementation). */
final class KvInternals {
    private KvInternals() {}

    static <K, V> StoredKvCache<K, V> of(KvCache<K, V> cache) {
        return (StoredKvCache<K, V>) cache;
    }
}

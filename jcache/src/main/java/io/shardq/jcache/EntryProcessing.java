package io.shardq.jcache;

import java.util.List;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.EntryProcessorException;

/**
 * How one cache runs an {@link EntryProcessor} on a key: in one change ({@link StoredEntries#change})
 * with the key locked, the processor sees a {@link ProcessorEntry} holding the current value, and
 * the last thing it did to the entry is applied in the same transaction when it returns.
 *
 * <p>Invariants: finding the key is the hit or the miss, whatever the processor does (JSR-107 and
 * its TCK); a value loaded by {@code getValue()} through the loader is stored without the writer; a
 * create or update goes through the writer, a remove through the writer's delete even for an absent
 * entry (as {@code remove(key)} does); anything the processor or the change throws reaches the
 * caller as {@link EntryProcessorException}, and the change is rolled back.
 */
final class EntryProcessing<K, V> {
    private final EntryCodec<K, V> codec;
    private final StoredEntries<K, V> entries;
    private final ReadWriteThrough<K, V> through;
    private final JCacheStatistics stats;

    EntryProcessing(
            EntryCodec<K, V> codec,
            StoredEntries<K, V> entries,
            ReadWriteThrough<K, V> through,
            JCacheStatistics stats) {
        this.codec = codec;
        this.entries = entries;
        this.through = through;
        this.stats = stats;
    }

    /** {@code processor} on the entry of {@code key} (checked already), in one change. */
    <T> T invoke(K key, EntryProcessor<K, V, T> processor, Object[] arguments) {
        try {
            return entries.change(List.of(key), tx -> process(tx, key, processor, arguments));
        } catch (EntryProcessorException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new EntryProcessorException(e);
        }
    }

    private <T> T process(StoredEntries<K, V>.Tx tx, K key, EntryProcessor<K, V, T> processor, Object[] arguments) {
        Stored cur = tx.current(key);
        V old = cur == null ? null : codec.decode(cur);
        // JSR-107 (and its TCK): finding the key is the hit or miss, whatever the processor does
        if (cur != null) {
            stats.hits(1);
        } else {
            stats.misses(1);
        }
        ProcessorEntry<K, V> e =
                new ProcessorEntry<>(key, old, through.readThrough() ? through::load : null, codec::requireValue);
        T result;
        try {
            result = processor.process(e, arguments);
        } catch (EntryProcessorException ex) {
            throw ex;
        } catch (Exception ex) {
            throw new EntryProcessorException(ex);
        }
        long now = entries.now();
        switch (e.op()) {
            case NONE -> {
                if (e.read() && cur != null && e.value() != null) {
                    entries.accessedIn(tx, key, cur);
                }
            }
            case LOAD -> {
                entries.store(tx, key, e.value(), null, now);
            }
            case CREATE, UPDATE -> {
                through.write(key, e.value());
                stats.puts(entries.store(tx, key, e.value(), cur, now) ? 1 : 0);
            }
            case REMOVE -> {
                through.delete(key); // also for an absent entry, as remove(key) does
                if (cur != null) {
                    entries.remove(tx, key, cur);
                }
            }
        }
        return result;
    }
}

package io.shardq.jcache;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Consumer;
import java.util.function.Function;
import javax.cache.Cache;

/**
 * A cache's entries, a page of listed keys at a time (keyset paging on the last key of the
 * previous page), each page's live entries read when the page is reached ({@code T}: what the
 * cache keeps of each until {@code next()} returns it). Not a snapshot.
 */
final class EntryIterator<K, V, T> implements Iterator<Cache.Entry<K, V>> {
    private final Function<K, List<K>> keysAfter;
    private final int page;
    private final Function<List<K>, List<T>> entries;
    private final Function<T, Cache.Entry<K, V>> visit;
    private final Consumer<K> remover;
    private final ArrayDeque<T> ready = new ArrayDeque<>();
    private K after;
    private boolean done;
    private K last;

    EntryIterator(
            Function<K, List<K>> keysAfter,
            int page,
            Function<List<K>, List<T>> entries,
            Function<T, Cache.Entry<K, V>> visit,
            Consumer<K> remover) {
        this.keysAfter = keysAfter;
        this.page = page;
        this.entries = entries;
        this.visit = visit;
        this.remover = remover;
    }

    @Override
    public boolean hasNext() {
        while (ready.isEmpty() && !done) {
            List<K> keys = keysAfter.apply(after);
            if (keys.size() < page) {
                done = true;
            }
            if (!keys.isEmpty()) {
                after = keys.get(keys.size() - 1);
                ready.addAll(entries.apply(keys));
            }
        }
        return !ready.isEmpty();
    }

    @Override
    public Cache.Entry<K, V> next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        Cache.Entry<K, V> e = visit.apply(ready.poll()); // counted and accessed when returned
        last = e.getKey();
        return e;
    }

    @Override
    public void remove() {
        if (last == null) {
            throw new IllegalStateException("remove() without a next() before it");
        }
        remover.accept(last);
        last = null;
    }
}

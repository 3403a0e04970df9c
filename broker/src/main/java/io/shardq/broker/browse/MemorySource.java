package io.shardq.broker.browse;

import java.util.Collections;
import java.util.Iterator;

/**
 * Extension point for messages that never reach PostgreSQL: non-persistent messages, which the
 * instance keeps in memory. A {@link BrowseCursor} merges them, filtered by its selector, into
 * what it shows as one more ordered stream. {@code Broker#browse} supplies the non-persistent
 * messages the instance holds for the queue.
 */
@FunctionalInterface
public interface MemorySource {
    /** The shard number a {@link BrowsedMessage} from memory carries. */
    int SHARD = -1;

    /** No in-memory messages. */
    MemorySource NONE = Collections::emptyIterator;

    /**
     * The destination's waiting in-memory messages, oldest first, as they are now (a weakly
     * consistent view: consumed messages may or may not still appear). Called once per cursor.
     */
    Iterator<BrowsedMessage> messages();
}

package io.shardq.metrics;

import io.shardq.broker.Admin;
import io.shardq.broker.Broker;
import io.shardq.broker.CacheInfo;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.QueueStats;
import io.shardq.broker.ShardQException;
import io.shardq.broker.TopicStats;
import io.shardq.broker.catalog.DestinationInfo;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place that reads figures needing SQL ({@link Admin} stats): at most once per {@code
 * interval} of the injected clock, whatever the number of meters, MBean attributes and scrapes
 * that ask. Every gauge reads {@link #current()}; the first caller after the interval ran out
 * reads a new snapshot (the others wait for it, then share it). A read that fails keeps the
 * previous snapshot, logged once per failure streak, and is retried after the next interval.
 *
 * <p>Cost of one read: one statement listing the destinations, then about six per queue ({@link
 * io.shardq.broker.QueueAdmin#stats}) and four per topic ({@link io.shardq.broker.TopicAdmin#stats}), and one listing the key/value
 * caches. Thread-safe.
 */
final class Snapshots {
    private static final Logger LOG = LoggerFactory.getLogger(Snapshots.class);

    private final Broker broker;
    private final long intervalMillis;
    private final Clock clock;
    private volatile Snapshot current = Snapshot.EMPTY;
    private long reads;
    private boolean failing;

    Snapshots(Broker broker, Duration interval, Clock clock) {
        if (interval.isNegative()) {
            throw new IllegalArgumentException("snapshot interval " + interval + " is negative: expected 0 or more");
        }
        this.broker = broker;
        this.intervalMillis = interval.toMillis();
        this.clock = clock;
    }

    /** The snapshot, read anew when the last one is older than the interval. */
    Snapshot current() {
        Snapshot s = current;
        if (fresh(s)) {
            return s;
        }
        synchronized (this) {
            s = current;
            if (fresh(s) || broker.isClosed()) {
                return s;
            }
            try {
                s = read();
                reads++;
                failing = false;
                current = s;
            } catch (RuntimeException e) {
                if (!failing) {
                    LOG.warn(
                            "{} - metrics snapshot could not be read, serving the previous one",
                            broker.instanceId(),
                            e);
                }
                failing = true;
                // retry after a whole interval, not on every gauge of this scrape
                current = s = new Snapshot(clock.millis(), s.queues(), s.topics(), s.caches());
            }
            return s;
        }
    }

    /** Snapshots read from the database so far (for tests of the caching). */
    synchronized long reads() {
        return reads;
    }

    private boolean fresh(Snapshot s) {
        return s != Snapshot.EMPTY && clock.millis() - s.takenAtMillis() < intervalMillis;
    }

    private Snapshot read() {
        long now = clock.millis();
        Admin admin = broker.admin();
        Map<String, QueueStats> queues = new TreeMap<>();
        Map<String, TopicStats> topics = new TreeMap<>();
        for (DestinationInfo d : admin.list()) {
            try {
                if (d.isTopic()) {
                    topics.put(d.name(), admin.topics().stats(d.name()));
                } else {
                    queues.put(d.name(), admin.queues().stats(d.name()));
                }
            } catch (ShardQException e) {
                if (e.kind() != ErrorKind.UNKNOWN_DESTINATION) {
                    throw e;
                }
                // dropped since the list was read: left out
            }
        }
        Map<String, CacheInfo> caches = new TreeMap<>();
        for (CacheInfo c : admin.caches().list()) {
            caches.put(c.name(), c);
        }
        return new Snapshot(now, Map.copyOf(queues), Map.copyOf(topics), Map.copyOf(caches));
    }
}

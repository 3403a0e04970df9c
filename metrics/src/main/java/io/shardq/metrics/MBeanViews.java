package io.shardq.metrics;

import io.shardq.broker.CacheInfo;
import io.shardq.broker.CacheStats;
import io.shardq.broker.DestinationCounters;
import io.shardq.broker.SubscriptionStats;
import io.shardq.broker.shard.EngineStats;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/** The MXBean implementations: each reads {@link Figures} on every attribute read. */
final class MBeanViews {
    private MBeanViews() {}

    static final class Instance implements InstanceMXBean {
        private final Figures f;

        Instance(Figures f) {
            this.f = f;
        }

        private EngineStats stats() {
            return f.broker.stats();
        }

        @Override
        public long getInstanceId() {
            return f.broker.instanceId();
        }

        @Override
        public boolean isMaintenanceLeader() {
            return f.broker.isMaintenanceLeader();
        }

        @Override
        public long getEnqueued() {
            return stats().enqueued();
        }

        @Override
        public long getDequeued() {
            return stats().dequeued();
        }

        @Override
        public long getDeadLettered() {
            return stats().deadLettered();
        }

        @Override
        public long getExpired() {
            return stats().expired();
        }

        @Override
        public long getMessageCacheHits() {
            return f.broker.messageCacheStats().hits();
        }

        @Override
        public long getMessageCacheMisses() {
            return f.broker.messageCacheStats().misses();
        }

        @Override
        public double getMessageCacheHitRatio() {
            return f.broker.messageCacheStats().hitRatio();
        }

        @Override
        public long getMessageCacheBytes() {
            return f.broker.messageCacheStats().bytes();
        }

        @Override
        public long getDequeueSqlReads() {
            return stats().dequeueSqlReads();
        }

        @Override
        public double getSqlReadsPerDequeue() {
            return stats().sqlReadsPerDequeue();
        }

        @Override
        public long getSendCommits() {
            return stats().sendCommits();
        }

        @Override
        public double getSendCommitMillisTotal() {
            return stats().sendCommitNanos() / 1e6;
        }

        @Override
        public long getConsumeCommits() {
            return stats().consumeCommits();
        }

        @Override
        public double getConsumeCommitMillisTotal() {
            return stats().consumeCommitNanos() / 1e6;
        }

        @Override
        public boolean isRetirementBlocked() {
            return f.retirementBlockedSince() >= 0;
        }

        @Override
        public long getRetirementBlockedMillis() {
            return f.retirementBlockedMillis();
        }

        @Override
        public String getRetirementBlockedBy() {
            return isRetirementBlocked() ? stats().retireBlockedBy() : "";
        }

        @Override
        public long getSlicesRetired() {
            return stats().slicesRetired();
        }
    }

    static final class Destination implements DestinationMXBean {
        private final Figures f;
        private final String name;
        private final String kind;

        Destination(Figures f, String name, String kind) {
            this.f = f;
            this.name = name;
            this.kind = kind;
        }

        private long local(ToLongFunction<DestinationCounters> figure) {
            return f.broker.destinationCounters(name).map(figure::applyAsLong).orElse(0L);
        }

        private long snapshot(ToDoubleFunction<Snapshot> figure) {
            double v = figure.applyAsDouble(f.snapshots.current());
            return Double.isNaN(v) ? -1 : (long) v;
        }

        @Override
        public String getName() {
            return name;
        }

        @Override
        public String getKind() {
            return kind;
        }

        @Override
        public long getEnqueued() {
            return local(DestinationCounters::enqueued);
        }

        @Override
        public long getDequeued() {
            return local(DestinationCounters::dequeued);
        }

        @Override
        public long getRedelivered() {
            return local(DestinationCounters::redelivered);
        }

        @Override
        public long getDeadLettered() {
            return local(DestinationCounters::deadLettered);
        }

        @Override
        public long getExpired() {
            return local(DestinationCounters::expired);
        }

        @Override
        public long getBacklog() {
            return snapshot(s -> s.backlog(name));
        }

        @Override
        public long getOldestMessageAgeMillis() {
            return snapshot(s -> s.oldestAgeMillis(name));
        }

        @Override
        public long getScheduled() {
            return snapshot(s -> s.scheduled(name));
        }

        @Override
        public long getRetirementHeldBy() {
            return snapshot(s -> s.retirementHeldBy(name));
        }
    }

    static final class Subscription implements SubscriptionMXBean {
        private final Figures f;
        private final String topic;
        private final String name;

        Subscription(Figures f, String topic, String name) {
            this.f = f;
            this.topic = topic;
            this.name = name;
        }

        private SubscriptionStats stats() {
            return f.snapshots.current().subscription(topic, name);
        }

        private long figure(ToLongFunction<SubscriptionStats> figure) {
            SubscriptionStats s = stats();
            return s == null ? -1 : figure.applyAsLong(s);
        }

        @Override
        public String getTopic() {
            return topic;
        }

        @Override
        public String getName() {
            return name;
        }

        @Override
        public String getKind() {
            SubscriptionStats s = stats();
            return s == null ? "" : s.kind();
        }

        @Override
        public long getLag() {
            return figure(SubscriptionStats::lag);
        }

        @Override
        public long getOldestAgeMillis() {
            return figure(s -> s.oldestAgeMillis() == null ? 0 : s.oldestAgeMillis());
        }

        @Override
        public long getConsumers() {
            return figure(SubscriptionStats::consumers);
        }

        @Override
        public boolean isHoldingRetirement() {
            SubscriptionStats s = stats();
            return s != null && s.holdsRetirement();
        }

        @Override
        public long getExpired() {
            return figure(SubscriptionStats::expiredSeqs);
        }
    }

    static final class KvCache implements KvCacheMXBean {
        private final Figures f;
        private final String name;

        KvCache(Figures f, String name) {
            this.f = f;
            this.name = name;
        }

        private long local(ToDoubleFunction<CacheStats> figure) {
            double v = f.kv(name, figure);
            return Double.isNaN(v) ? -1 : (long) v;
        }

        private long row(ToLongFunction<CacheInfo> figure) {
            CacheInfo c = f.snapshots.current().caches().get(name);
            return c == null ? -1 : figure.applyAsLong(c);
        }

        @Override
        public String getName() {
            return name;
        }

        @Override
        public long getHits() {
            return local(CacheStats::hits);
        }

        @Override
        public long getMisses() {
            return local(CacheStats::misses);
        }

        @Override
        public double getHitRatio() {
            return f.kv(name, CacheStats::hitRatio);
        }

        @Override
        public long getNearHits() {
            return local(CacheStats::nearHits);
        }

        @Override
        public long getNearMisses() {
            return local(CacheStats::nearMisses);
        }

        @Override
        public long getLoads() {
            return local(CacheStats::loads);
        }

        @Override
        public long getLoadFailures() {
            return local(CacheStats::loadFailures);
        }

        @Override
        public double getLoadMillisTotal() {
            return f.kv(name, CacheStats::loadNanos) / 1e6;
        }

        @Override
        public long getPuts() {
            return local(CacheStats::puts);
        }

        @Override
        public long getRemovals() {
            return local(CacheStats::removals);
        }

        @Override
        public long getEvictions() {
            return row(CacheInfo::evictions);
        }

        @Override
        public long getExpirations() {
            return row(CacheInfo::expirations);
        }

        @Override
        public long getEntries() {
            return row(CacheInfo::entriesEstimate);
        }

        @Override
        public long getBytes() {
            return row(CacheInfo::bytes);
        }
    }
}

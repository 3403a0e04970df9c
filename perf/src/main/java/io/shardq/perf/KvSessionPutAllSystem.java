package io.shardq.perf;

import io.shardq.broker.Broker;
import io.shardq.broker.CacheOptions;
import io.shardq.broker.kv.Codec;
import io.shardq.broker.kv.KvCache;
import io.shardq.broker.shard.BrokerSession;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * ShardQ's key/value cache written inside transacted sessions, as a JMS application that calls
 * {@code ShardQSession.cache(name)} in a transacted session does: each writer thread has a session of
 * its own, and each {@code putAll} runs on the session's transaction and is made durable by the
 * session's commit, one commit per batch (issue 25's "putAll inside transacted sessions", to compare
 * with {@link KvPutAllSystem}'s unbound time in the same run).
 */
final class KvSessionPutAllSystem implements PutAllSystem {
    static final String NAME = "shardq-tx";
    static final String CACHE = "perf_putall_tx";

    private final Broker broker;
    private final int maxBatchSize;
    private volatile KvCache<byte[], byte[]> cache;
    /** Each writer thread's session and its view of the cache; the runner starts new threads per run. */
    private final ThreadLocal<Bound> bound = new ThreadLocal<>();

    private final ConcurrentLinkedQueue<BrokerSession> sessions = new ConcurrentLinkedQueue<>();

    private record Bound(BrokerSession session, KvCache<byte[], byte[]> view, KvCache<byte[], byte[]> of) {}

    KvSessionPutAllSystem(Broker broker, int maxBatchSize) {
        this.broker = broker;
        this.maxBatchSize = maxBatchSize;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void setUp() {
        closeSessions();
        KvPutAllSystem.dropCache(broker, CACHE);
        broker.admin().caches().create(CACHE, CacheOptions.DEFAULTS.withDurable(true));
        cache = broker.cache(CACHE, Codec.bytes(), Codec.bytes()).withMaxBatchSize(maxBatchSize);
    }

    @Override
    public void putAll(List<byte[]> keys, List<byte[]> values) {
        KvCache<byte[], byte[]> c = cache;
        Bound b = bound.get();
        if (b == null || b.of != c) {
            BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED);
            sessions.add(s);
            b = new Bound(s, c.in(s), c);
            bound.set(b);
        }
        try {
            b.view.putAll(KvPutAllSystem.batch(keys, values));
            b.session.commit();
        } catch (RuntimeException e) {
            b.session.rollback();
            throw e;
        }
    }

    @Override
    public long stored() {
        return broker.admin().caches().stats(CACHE).entries();
    }

    @Override
    public void close() {
        closeSessions();
        KvPutAllSystem.dropCache(broker, CACHE);
    }

    private void closeSessions() {
        BrokerSession s;
        while ((s = sessions.poll()) != null) {
            s.close();
        }
    }
}

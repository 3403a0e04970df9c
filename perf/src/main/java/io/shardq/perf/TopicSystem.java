package io.shardq.perf;

import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.ShardQException;
import io.shardq.broker.SubscriptionStats;
import io.shardq.jms.ShardQConnectionFactory;
import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import jakarta.jms.Topic;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * A ShardQ topic measured through the JMS API: P publishers (transacted sessions, one commit per
 * batch) and S durable subscriptions ({@code createDurableConsumer}, client id {@code perf-...}),
 * each message stored once and delivered to every subscription.
 *
 * <p>Consumers, two ways:
 *
 * <ul>
 *   <li><b>one thread per subscription</b> (when {@code consumerThreads == subscriptions}, the
 *       default up to 64): each thread has its own connection with its own client id, one
 *       transacted session and one durable consumer, and works as a queue consumer does: wait for
 *       a message, take what else is there up to the batch, commit.
 *   <li><b>pollers</b> (fewer threads than subscriptions, e.g. 4 for 1,000): each thread has one
 *       connection (one client id) with one transacted session and durable consumer per
 *       subscription it serves, and visits them in turn with {@code receiveNoWait()}. A
 *       subscription commits when it holds a full batch or its oldest uncommitted message has
 *       waited {@link #LINGER}, so commits stay "one per batch" at a low rate. A thread that found
 *       nothing anywhere parks 1 ms. Sessions hold a pooled JDBC connection only while a statement
 *       runs, so 1,000 sessions need no more connections than the threads that use them.
 * </ul>
 */
final class TopicSystem implements QueueSystem {
    static final String NAME = "topic";
    static final String TOPIC = "perf.topic";

    /** Longest a poller keeps a subscription's received messages uncommitted while it fills a batch. */
    static final Duration LINGER = Duration.ofMillis(50);

    private final Supplier<BrokerConfig.Builder> baseConfig;
    private final int subscriptions;
    private final int consumerThreads;
    private final double ratePerSecond;
    private final int receiveBatch;
    private final PublishMeter publishes = new PublishMeter();
    private final LongAdder published = new LongAdder();
    private final LongAdder delivered = new LongAdder();
    private final AtomicInteger nextConsumer = new AtomicInteger();
    private final List<Connection> connections = new ArrayList<>();
    private ShardQConnectionFactory factory;
    private Connection publisherConnection;
    private Settings settings;
    private DataSource dataSource;
    private volatile Map<String, Long> lagAtStart = Map.of();
    private volatile Map<String, Long> lagAtEnd = Map.of();
    private volatile StoredRows storedRows = StoredRows.UNKNOWN;

    /**
     * @param baseConfig where ShardQ connects: the environment's settings, or a test database's
     * @param subscriptions durable subscriptions of the topic
     * @param consumerThreads threads consuming them; as many as subscriptions gives each its own
     * @param ratePerSecond messages per second published by all publishers together; 0: as fast as
     *     they can
     * @param receiveBatch messages a subscription's consumer commits at once; 0: the publishers' batch
     */
    TopicSystem(
            Supplier<BrokerConfig.Builder> baseConfig,
            int subscriptions,
            int consumerThreads,
            double ratePerSecond,
            int receiveBatch) {
        if (subscriptions < 1 || consumerThreads < 1 || consumerThreads > subscriptions) {
            throw new IllegalArgumentException("subscriptions " + subscriptions + " and consumer threads "
                    + consumerThreads + " are invalid: expected 1 <= threads <= subscriptions");
        }
        this.baseConfig = baseConfig;
        this.subscriptions = subscriptions;
        this.consumerThreads = consumerThreads;
        this.ratePerSecond = ratePerSecond;
        this.receiveBatch = receiveBatch;
    }

    @Override
    public String name() {
        return NAME;
    }

    /**
     * The pool this system's factory gets unless {@code shardq.pool.size} asks for more: the docs'
     * rule (consuming sessions at work at once + shards + 8) plus the publishers. With pollers only
     * {@code consumerThreads} sessions run a statement at once, whatever the subscriptions.
     */
    static int poolSize(int publishers, int consumerThreads, int shards) {
        return publishers + consumerThreads + shards + 8;
    }

    @Override
    public void setUp(DataSource dataSource, Settings settings) throws Exception {
        this.settings = settings;
        this.dataSource = dataSource;
        BrokerConfig.Builder config = baseConfig.get().set(BrokerProperty.AUTO_CREATE_DESTINATIONS, false);
        int pool = poolSize(settings.threads(), consumerThreads, settings.shards());
        if (BrokerConfig.fromEnvironment().getInt(BrokerProperty.POOL_SIZE) < pool) {
            config.set(BrokerProperty.POOL_SIZE, pool);
        }
        if (settings.unsafe()) {
            config.set(BrokerProperty.JDBC_INIT_SQL, "set synchronous_commit = off");
        }
        factory = new ShardQConnectionFactory(config.build());
        try {
            factory.broker().admin().topics().drop(TOPIC, true);
        } catch (ShardQException e) {
            // not there yet
        }
        factory.broker()
                .admin()
                .topics()
                .create(
                        TOPIC,
                        QueueOptions.DEFAULTS.withShards(settings.shards()).withSliceSize(50_000));
        publisherConnection = factory.createConnection();
        publisherConnection.start();
    }

    @Override
    public int consumerThreads(Settings settings) {
        return consumerThreads;
    }

    @Override
    public long deliveriesPerMessage() {
        return subscriptions;
    }

    int subscriptions() {
        return subscriptions;
    }

    static String subscriptionName(int i) {
        return "sub-" + i;
    }

    @Override
    public Producer producer() throws Exception {
        Session session = publisherConnection.createSession(true, Session.SESSION_TRANSACTED);
        return new JmsBatchProducer(session, session.createTopic(TOPIC), settings, ratePerSecond, publishes, published);
    }

    /**
     * The consumer of the next thread: subscriptions {@code k, k + threads, k + 2 x threads, ...}
     * for the k-th call, on a connection of its own with client id {@code perf-consumer-k}.
     */
    @Override
    public Consumer consumer() throws Exception {
        int k = nextConsumer.getAndIncrement();
        Connection connection = factory.createConnection();
        connections.add(connection);
        connection.setClientID("perf-consumer-" + k);
        List<Subscriber> mine = new ArrayList<>();
        for (int i = k; i < subscriptions; i += consumerThreads) {
            Session session = connection.createSession(true, Session.SESSION_TRANSACTED);
            Topic topic = session.createTopic(TOPIC);
            mine.add(new Subscriber(session, session.createDurableConsumer(topic, subscriptionName(i))));
        }
        connection.start();
        int batch = receiveBatch > 0 ? receiveBatch : settings.batchSize();
        return mine.size() == 1 ? new OneSubscription(mine.get(0), batch) : new Poller(mine, batch);
    }

    /** One subscription's session and consumer, and what it received since its last commit. */
    private final class Subscriber {
        final Session session;
        final MessageConsumer consumer;
        final List<Delivery> pending = new ArrayList<>();
        long firstPendingNanos;

        Subscriber(Session session, MessageConsumer consumer) {
            this.session = session;
            this.consumer = consumer;
        }

        void add(Message m) throws Exception {
            BytesMessage b = (BytesMessage) m;
            byte[] payload = new byte[(int) b.getBodyLength()];
            b.readBytes(payload);
            if (pending.isEmpty()) {
                firstPendingNanos = System.nanoTime();
            }
            pending.add(new Delivery(m.getJMSMessageID(), Payloads.sentMicros(payload)));
        }

        /** Commits what is pending and moves it to {@code out}. */
        void commitInto(List<Delivery> out) throws Exception {
            session.commit();
            delivered.add(pending.size());
            out.addAll(pending);
            pending.clear();
        }
    }

    /** A thread of its own for one subscription: as a queue consumer. */
    private static final class OneSubscription implements Consumer {
        private final Subscriber s;
        private final int batch;

        OneSubscription(Subscriber s, int batch) {
            this.s = s;
            this.batch = batch;
        }

        /** Takes up to this system's receive batch, whatever the harness's {@code max}. */
        @Override
        public List<Delivery> receiveBatch(int max, Duration wait) throws Exception {
            Message m = s.consumer.receive(Math.max(1, wait.toMillis()));
            while (m != null) {
                s.add(m);
                m = s.pending.size() < batch ? s.consumer.receiveNoWait() : null;
            }
            List<Delivery> got = new ArrayList<>(s.pending.size());
            if (!s.pending.isEmpty()) {
                s.commitInto(got);
            }
            return got;
        }

        @Override
        public void close() throws Exception {
            s.session.close();
        }
    }

    /** A thread visiting many subscriptions with receiveNoWait. */
    private static final class Poller implements Consumer {
        private static final long IDLE_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
        private final List<Subscriber> subscribers;
        private final int batch;

        Poller(List<Subscriber> subscribers, int batch) {
            this.subscribers = subscribers;
            this.batch = batch;
        }

        @Override
        public List<Delivery> receiveBatch(int max, Duration wait) throws Exception {
            List<Delivery> got = new ArrayList<>();
            long deadline = System.nanoTime() + wait.toNanos();
            while (true) {
                for (Subscriber s : subscribers) {
                    Message m = s.pending.size() < batch ? s.consumer.receiveNoWait() : null;
                    while (m != null) {
                        s.add(m);
                        m = s.pending.size() < batch ? s.consumer.receiveNoWait() : null;
                    }
                    if (s.pending.size() >= batch
                            || (!s.pending.isEmpty() && System.nanoTime() - s.firstPendingNanos >= LINGER.toNanos())) {
                        s.commitInto(got);
                    }
                }
                if (!got.isEmpty() || System.nanoTime() - deadline >= 0) {
                    return got;
                }
                LockSupport.parkNanos(IDLE_PARK_NANOS);
            }
        }

        @Override
        public void close() throws Exception {
            for (Subscriber s : subscribers) {
                s.session.close();
            }
        }
    }

    /** Messages published (committed) and delivered (committed by a subscriber) since setUp. */
    long published() {
        return published.sum();
    }

    long delivered() {
        return delivered.sum();
    }

    @Override
    public void measureStarts() {
        publishes.startWindow();
        lagAtStart = lags();
    }

    @Override
    public void measureEnds() {
        publishes.endWindow();
        lagAtEnd = lags();
        storedRows = StoredRows.of(dataSource, factory, TOPIC);
    }

    /** Each subscription's lag (messages it has not passed yet), by name, from shardq.subscriptions. */
    private Map<String, Long> lags() {
        Map<String, Long> out = new LinkedHashMap<>();
        try {
            for (SubscriptionStats s : factory.broker().admin().topics().subscriptions(TOPIC)) {
                out.put(s.name(), s.lag());
            }
        } catch (Exception e) {
            // reported as unknown
        }
        return out;
    }

    /** Each subscription's backlog when the measured window started and ended. */
    List<SubscriptionBacklog> backlogs() {
        List<SubscriptionBacklog> out = new ArrayList<>();
        for (int i = 0; i < subscriptions; i++) {
            String name = subscriptionName(i);
            out.add(new SubscriptionBacklog(
                    name, lagAtStart.getOrDefault(name, -1L), lagAtEnd.getOrDefault(name, -1L)));
        }
        return out;
    }

    LatencyStats publishCommits() {
        return publishes.window();
    }

    StoredRows storedRows() {
        return storedRows;
    }

    @Override
    public long backlog() throws Exception {
        long sum = 0;
        for (SubscriptionStats s : factory.broker().admin().topics().subscriptions(TOPIC)) {
            sum += s.lag();
        }
        return sum;
    }

    @Override
    public List<String> tables() {
        try {
            return List.of("shardq.m_" + factory.broker().admin().require(TOPIC).id());
        } catch (Exception e) {
            return List.of();
        }
    }

    @Override
    public java.util.OptionalLong sqlReads() {
        try {
            return java.util.OptionalLong.of(factory.broker().stats().dequeueSqlReads());
        } catch (Exception e) {
            return java.util.OptionalLong.empty();
        }
    }

    @Override
    public void tearDown() throws Exception {
        for (Connection c : connections) {
            try {
                c.close();
            } catch (Exception e) {
                // closing the rest matters more
            }
        }
        connections.clear();
        if (publisherConnection != null) {
            publisherConnection.close();
        }
        if (factory != null) {
            try {
                factory.broker().admin().topics().drop(TOPIC, true);
            } finally {
                factory.close();
            }
        }
    }
}

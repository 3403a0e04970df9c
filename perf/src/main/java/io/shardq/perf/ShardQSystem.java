package io.shardq.perf;

import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.ShardQException;
import io.shardq.jms.ShardQConnectionFactory;
import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * ShardQ measured as applications use it: through the JMS API, transacted sessions, one commit
 * per batch. One connection factory (one ShardQ instance) for the run.
 *
 * <p>The {@linkplain #async asynchronous} variant ({@value #ASYNC_NAME}, {@code perf queue
 * --async}) differs only in its producers: a non-transacted session each, every message sent with a
 * {@code CompletionListener}, a bounded number in flight ({@link JmsAsyncProducer}). Its consumers
 * are the same as the synchronous system's, so the two rows of a run differ in the send alone.
 */
final class ShardQSystem implements QueueSystem {
    static final String QUEUE = "perf.shardq";
    static final String ASYNC_NAME = "shardq-async";
    /** Default of {@code --async-in-flight}: batches a producer may have awaiting completion. */
    static final int DEFAULT_IN_FLIGHT_BATCHES = 10;

    private final Supplier<BrokerConfig.Builder> baseConfig;
    private final double ratePerSecond;
    private final int asyncInFlightBatches;
    private final String queue;
    /** Creates and drops the queue (the run's system); false for a {@link QueuePeer}, which joins it. */
    private final boolean owner;

    private int instances = 1;
    private PeerInstances peers = PeerInstances.NONE;
    private final PublishMeter publishes = new PublishMeter();
    private ShardQConnectionFactory factory;
    private Connection connection;
    private Settings settings;
    private DataSource dataSource;
    private volatile StoredRows storedRows = StoredRows.UNKNOWN;
    private volatile long backlogAtStart = -1;
    private volatile long backlogAtEnd = -1;

    ShardQSystem() {
        this(BrokerConfig::builder, 0);
    }

    /**
     * @param baseConfig where ShardQ connects: the environment's settings, or a test database's
     * @param ratePerSecond messages per second sent by all producers together; 0: as fast as they can
     */
    ShardQSystem(Supplier<BrokerConfig.Builder> baseConfig, double ratePerSecond) {
        this(baseConfig, ratePerSecond, 0);
    }

    /** ShardQ through JMS on a queue of its own name (the SQL sender's consumers: {@link SqlSenderSystem}). */
    static ShardQSystem onQueue(Supplier<BrokerConfig.Builder> baseConfig, String queue) {
        return new ShardQSystem(baseConfig, 0, 0, queue, true);
    }

    private ShardQSystem(Supplier<BrokerConfig.Builder> baseConfig, double ratePerSecond, int asyncInFlightBatches) {
        this(baseConfig, ratePerSecond, asyncInFlightBatches, QUEUE, true);
    }

    private ShardQSystem(
            Supplier<BrokerConfig.Builder> baseConfig,
            double ratePerSecond,
            int asyncInFlightBatches,
            String queue,
            boolean owner) {
        this.baseConfig = baseConfig;
        this.ratePerSecond = ratePerSecond;
        this.asyncInFlightBatches = asyncInFlightBatches;
        this.queue = queue;
        this.owner = owner;
    }

    /** A {@link QueuePeer}'s system: producers and consumers on {@code queue}, which it neither creates nor drops. */
    static ShardQSystem joining(Supplier<BrokerConfig.Builder> baseConfig, String queue) {
        return new ShardQSystem(baseConfig, 0, 0, queue, false);
    }

    /**
     * Runs the load on {@code n} instances: this one and {@code n - 1} {@link QueuePeer} JVMs,
     * threads dealt round robin (thread i runs on instance {@code i mod n}).
     */
    ShardQSystem instances(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("instances " + n + " is invalid: expected at least 1");
        }
        this.instances = n;
        return this;
    }

    /** Producer threads (and consumer threads) that instance {@code i} (0: this JVM) runs of {@code threads}. */
    static int threadsOf(int instance, int instances, int threads) {
        return threads / instances + (instance < threads % instances ? 1 : 0);
    }

    @Override
    public int localThreads(Settings settings) {
        return threadsOf(0, instances, settings.threads());
    }

    @Override
    public int consumerThreads(Settings settings) {
        return localThreads(settings);
    }

    @Override
    public PeerInstances peers() {
        return peers;
    }

    /**
     * The asynchronous variant: each producer may have {@code inFlightBatches} x the batch size
     * messages sent and not yet completed.
     */
    static ShardQSystem async(Supplier<BrokerConfig.Builder> baseConfig, int inFlightBatches) {
        if (inFlightBatches < 1) {
            throw new IllegalArgumentException(
                    "async in flight " + inFlightBatches + " is invalid: expected at least 1 batch");
        }
        return new ShardQSystem(baseConfig, 0, inFlightBatches);
    }

    @Override
    public String name() {
        return asyncInFlightBatches > 0 ? ASYNC_NAME : SystemRegistry.SHARDQ;
    }

    @Override
    public void setUp(DataSource dataSource, Settings settings) throws Exception {
        this.settings = settings;
        this.dataSource = dataSource;
        // the default pool (shardq.pool.size): a session holds a connection only while a statement
        // or commit runs, so 2 x threads sessions do not need 2 x threads connections
        BrokerConfig.Builder config = baseConfig.get().set(BrokerProperty.AUTO_CREATE_DESTINATIONS, false);
        if (settings.unsafe()) {
            config.set(BrokerProperty.JDBC_INIT_SQL, "set synchronous_commit = off");
        }
        BrokerConfig built = config.build();
        factory = new ShardQConnectionFactory(built);
        if (owner) {
            freshQueue(factory, queue, settings.shards());
        }
        connection = factory.createConnection();
        connection.start();
        if (instances > 1) {
            if (settings.threads() < instances) {
                throw new IllegalArgumentException("threads " + settings.threads() + " is invalid with " + instances
                        + " instances: expected at least one producer and one consumer per instance");
            }
            List<Integer> perPeer = new ArrayList<>();
            for (int i = 1; i < instances; i++) {
                perPeer.add(threadsOf(i, instances, settings.threads()));
            }
            peers = PeerInstances.start(queue, settings, perPeer, peerSettings(built));
        }
    }

    /** What a peer JVM needs to reach the same database as this instance: every setting but the password. */
    private static java.util.Map<String, String> peerSettings(BrokerConfig config) {
        java.util.Map<String, String> out = new java.util.TreeMap<>();
        for (BrokerProperty p : BrokerProperty.values()) {
            if (p != BrokerProperty.JDBC_PASSWORD && p != BrokerProperty.INSTANCE_NAME) {
                out.put(p.key(), config.get(p));
            }
        }
        return out;
    }

    @Override
    public Producer producer() throws Exception {
        if (asyncInFlightBatches > 0) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            return new JmsAsyncProducer(
                    session,
                    session.createQueue(queue),
                    settings,
                    asyncInFlightBatches * settings.batchSize(),
                    publishes);
        }
        Session session = connection.createSession(true, Session.SESSION_TRANSACTED);
        return new JmsBatchProducer(
                session, session.createQueue(queue), settings, ratePerSecond, publishes, new LongAdder());
    }

    @Override
    public Consumer consumer() throws Exception {
        Session session = connection.createSession(true, Session.SESSION_TRANSACTED);
        MessageConsumer consumer = session.createConsumer(session.createQueue(queue));
        return new Consumer() {
            @Override
            public List<Delivery> receiveBatch(int max, Duration wait) throws Exception {
                List<Delivery> got = new ArrayList<>(max);
                Message m = consumer.receive(Math.max(1, wait.toMillis()));
                while (m != null) {
                    BytesMessage b = (BytesMessage) m;
                    byte[] payload = new byte[(int) b.getBodyLength()];
                    b.readBytes(payload);
                    got.add(new Delivery(m.getJMSMessageID(), Payloads.sentMicros(payload)));
                    m = got.size() < max ? consumer.receiveNoWait() : null;
                }
                if (!got.isEmpty()) {
                    session.commit();
                }
                return got;
            }

            @Override
            public void close() throws Exception {
                session.close();
            }
        };
    }

    @Override
    public void measureStarts() {
        publishes.startWindow();
        backlogAtStart = backlogOrUnknown();
    }

    @Override
    public void measureEnds() {
        publishes.endWindow();
        backlogAtEnd = backlogOrUnknown();
        storedRows = StoredRows.of(dataSource, factory, queue);
    }

    private long backlogOrUnknown() {
        try {
            return backlog();
        } catch (Exception e) {
            return -1;
        }
    }

    /** The queue's backlog when the last measured window started and ended (-1: unknown). */
    SubscriptionBacklog windowBacklog() {
        return new SubscriptionBacklog(queue, backlogAtStart, backlogAtEnd);
    }

    /** The producers' batches (sends and commit) in the last measured window. */
    LatencyStats publishCommits() {
        return publishes.window();
    }

    /** The queue's rows at the end of the last measured window. */
    StoredRows storedRows() {
        return storedRows;
    }

    @Override
    public long backlog() throws Exception {
        return factory.broker().admin().queues().backlog(queue);
    }

    @Override
    public List<String> tables() {
        try {
            return List.of("shardq.m_" + factory.broker().admin().require(queue).id());
        } catch (Exception e) {
            return List.of();
        }
    }

    @Override
    public OptionalLong sqlReads() {
        try {
            return OptionalLong.of(factory.broker().stats().dequeueSqlReads());
        } catch (Exception e) {
            return OptionalLong.empty();
        }
    }

    @Override
    public List<InnerStep> innerSteps() {
        List<InnerStep> out = new ArrayList<>();
        io.shardq.broker.Broker broker;
        try {
            broker = factory.broker();
        } catch (jakarta.jms.JMSException e) {
            return out;
        }
        broker.stats()
                .steps()
                .interval()
                .forEach((step, t) -> out.add(new InnerStep(
                        step.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' '),
                        t.count(),
                        t.p50(),
                        t.p90(),
                        t.p99(),
                        t.max())));
        return out;
    }

    @Override
    public void tearDown() throws Exception {
        peers.close(); // each peer closes its instance before the queue goes
        if (connection != null) {
            connection.close();
        }
        if (factory != null) {
            try {
                if (owner) {
                    factory.broker().admin().queues().drop(queue, true);
                }
            } finally {
                factory.close();
            }
        }
    }

    /** Drops {@code name} if a previous run left it, and creates it anew with {@code shards} shards. */
    static void freshQueue(ShardQConnectionFactory factory, String name, int shards) throws JMSException {
        try {
            factory.broker().admin().queues().drop(name, true);
        } catch (ShardQException e) {
            // not there yet
        }
        factory.broker()
                .admin()
                .queues()
                .create(name, QueueOptions.DEFAULTS.withShards(shards).withSliceSize(50_000));
    }
}

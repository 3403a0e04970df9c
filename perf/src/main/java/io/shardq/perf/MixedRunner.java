package io.shardq.perf;

import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.ShardQException;
import io.shardq.jms.ShardQConnectionFactory;
import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.HdrHistogram.Histogram;

/**
 * Runs the {@code mixed} scenario on ShardQ: {@link #setUp()} (application tables, one
 * connection factory, the queue, the prefill), then {@link #runStage} for each user count, then
 * {@link #check()} and {@link #close()} (queue and tables dropped).
 *
 * <p>A stage: U users start, each with its own session and thread; the warm-up; a snapshot of
 * the cumulative per-template counts; the measured window; a snapshot; the users stop and their
 * sessions close. The queue and the tables carry over from stage to stage, as TPoX's database
 * grows from one stage to the next. Only this thread calls the runner; the users share nothing
 * but the {@link TemplateMeter}s, which are thread-safe.
 */
final class MixedRunner implements AutoCloseable {
    static final String QUEUE = "perf.mixed";

    private static final long TICK_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final int PREFILL_BATCH = 100;

    private final DataSource dataSource;
    private final Supplier<BrokerConfig.Builder> brokerConfig;
    private final MixedScenario scenario;
    private final MixedProgress progress;
    private final ApplicationTables tables;
    private final ServerProbe probe;
    private final List<TemplateMeter> meters = new ArrayList<>();
    private final WeightedChoice choice;
    private ShardQConnectionFactory factory;
    private Connection connection;
    private boolean tablesCreated;

    /**
     * @param dataSource the harness's pool, with the run's session settings: application tables,
     *     server probes
     * @param brokerConfig where ShardQ connects: the environment's settings, or a test database's
     */
    MixedRunner(
            DataSource dataSource,
            Supplier<BrokerConfig.Builder> brokerConfig,
            MixedScenario scenario,
            MixedProgress progress) {
        this.dataSource = dataSource;
        this.brokerConfig = brokerConfig;
        this.scenario = scenario;
        this.progress = progress;
        this.tables = new ApplicationTables(dataSource);
        this.probe = new ServerProbe(dataSource);
        Workload w = scenario.workload();
        w.templates().forEach(t -> meters.add(new TemplateMeter(t)));
        this.choice = new WeightedChoice(
                w.templates().stream().mapToInt(Workload.Template::weight).toArray());
    }

    /** Fresh application tables and queue, and the prefill. */
    void setUp() throws Exception {
        Workload w = scenario.workload();
        tablesCreated = true;
        tables.recreate(w.accounts());
        BrokerConfig.Builder config = brokerConfig
                .get()
                // a user holds its transaction's connection and may borrow one more (a cache miss)
                .set(BrokerProperty.POOL_SIZE, 2 * scenario.maxUsers() + 8)
                .set(BrokerProperty.AUTO_CREATE_DESTINATIONS, false);
        if (scenario.unsafe()) {
            config.set(BrokerProperty.JDBC_INIT_SQL, "set synchronous_commit = off");
        }
        factory = new ShardQConnectionFactory(config.build());
        dropQueue();
        factory.broker()
                .admin()
                .queues()
                .create(QUEUE, QueueOptions.DEFAULTS.withShards(w.shards()).withSliceSize(50_000));
        connection = factory.createConnection();
        connection.start();
        prefill(w.prefill());
    }

    private void prefill(int messages) throws Exception {
        byte[] body = Payloads.filler(scenario.workload().payloadBytes(), -1);
        try (Session s = connection.createSession(true, Session.SESSION_TRANSACTED)) {
            MessageProducer p = s.createProducer(s.createQueue(QUEUE));
            for (int i = 0; i < messages; i++) {
                BytesMessage m = s.createBytesMessage();
                m.writeBytes(body);
                p.send(m);
                if ((i + 1) % PREFILL_BATCH == 0 || i == messages - 1) {
                    s.commit();
                }
            }
        }
    }

    /** One stage of {@code users} concurrent users. */
    StageResult runStage(int users) throws Exception {
        AtomicBoolean running = new AtomicBoolean(true);
        List<MixedUser> workers = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        try {
            for (int i = 0; i < users; i++) {
                MixedUser u = new MixedUser(i, connection, QUEUE, scenario.workload(), meters, choice, running);
                workers.add(u);
                Thread t = new Thread(u, "shardq-perf-mixed-user-" + i);
                t.setDaemon(true);
                threads.add(t);
            }
            meters.forEach(TemplateMeter::takeFirstError); // each stage reports its own
            threads.forEach(Thread::start);
            long begin = System.nanoTime();
            progress.begin("mixed x" + users, begin, total());
            pace("warm-up", begin, scenario.warmup());
            meters.forEach(TemplateMeter::takeLatencies); // the warm-up's latencies are dropped
            long startNanos = System.nanoTime();
            List<TemplateMeter.Counts> start = counts();
            Optional<String> startLsn = probe.currentWalLsn();
            pace("measure", startNanos, scenario.duration());
            long endNanos = System.nanoTime();
            List<TemplateMeter.Counts> end = counts();
            Optional<String> endLsn = probe.currentWalLsn();
            List<Histogram> latencies =
                    meters.stream().map(TemplateMeter::takeLatencies).toList();
            progress.end();
            stop(running, threads, workers);
            long backlog = factory.broker().admin().queues().backlog(QUEUE);
            return result(users, endNanos - startNanos, start, end, latencies, backlog, startLsn, endLsn);
        } finally {
            progress.end();
            stop(running, threads, workers);
        }
    }

    private StageResult result(
            int users,
            long nanos,
            List<TemplateMeter.Counts> start,
            List<TemplateMeter.Counts> end,
            List<Histogram> latencies,
            long backlog,
            Optional<String> startLsn,
            Optional<String> endLsn) {
        double seconds = Rates.seconds(nanos);
        TemplateMeter.Counts sum = TemplateMeter.Counts.ZERO;
        for (int i = 0; i < meters.size(); i++) {
            sum = sum.plus(end.get(i).minus(start.get(i)));
        }
        Histogram all = LatencyStats.newHistogram();
        List<StageResult.TemplateResult> rows = new ArrayList<>();
        String firstError = null;
        for (int i = 0; i < meters.size(); i++) {
            TemplateMeter m = meters.get(i);
            TemplateMeter.Counts c = end.get(i).minus(start.get(i));
            all.add(latencies.get(i));
            String error = m.takeFirstError();
            firstError = firstError == null && error != null ? m.template().name() + ": " + error : firstError;
            rows.add(new StageResult.TemplateResult(
                    m.template().name(),
                    m.template().weight(),
                    c,
                    seconds,
                    Rates.ratio(c.committed(), sum.committed()),
                    LatencyStats.of(latencies.get(i)),
                    error));
        }
        StageResult.TemplateResult total = new StageResult.TemplateResult(
                StageResult.ALL,
                scenario.workload().totalWeight(),
                sum,
                seconds,
                sum.committed() > 0 ? 1.0 : Double.NaN,
                LatencyStats.of(all),
                firstError);
        double wal = startLsn.isPresent() && endLsn.isPresent()
                ? WalDelta.between(startLsn.get(), endLsn.get()).bytesPerMessage(sum.committed())
                : Double.NaN;
        return new StageResult(users, seconds, rows, total, backlog, wal);
    }

    /**
     * The application rows and the queue against what the users committed over the whole run.
     * Call after the last stage, before {@link #close()}.
     */
    ApplicationCheck check() throws Exception {
        Workload w = scenario.workload();
        long[] committed = new long[meters.size()];
        TemplateMeter.Counts sum = TemplateMeter.Counts.ZERO;
        for (int i = 0; i < meters.size(); i++) {
            TemplateMeter.Counts c = meters.get(i).counts();
            committed[i] = c.committed();
            sum = sum.plus(c);
        }
        return new ApplicationCheck(
                tables.accountUpdates(),
                w.stepsOf(Workload.Step.Kind.UPDATE_ACCOUNT, committed),
                tables.auditRows(),
                w.stepsOf(Workload.Step.Kind.INSERT_AUDIT, committed),
                factory.broker().admin().queues().backlog(QUEUE),
                w.prefill() + sum.sent() - sum.received());
    }

    /** Cumulative counts of each template since the run began, in workload order. */
    List<TemplateMeter.Counts> counts() {
        return meters.stream().map(TemplateMeter::counts).toList();
    }

    private TemplateMeter.Counts total() {
        TemplateMeter.Counts sum = TemplateMeter.Counts.ZERO;
        for (TemplateMeter m : meters) {
            sum = sum.plus(m.counts());
        }
        return sum;
    }

    /** Waits until {@code begin + length}, ticking the progress line every second. */
    private void pace(String phase, long begin, Duration length) throws InterruptedException {
        long deadline = begin + length.toNanos();
        long now = System.nanoTime();
        while (now < deadline) {
            long nap = Math.min(TICK_NANOS - (now - begin) % TICK_NANOS, deadline - now);
            TimeUnit.NANOSECONDS.sleep(Math.max(1_000_000L, nap));
            now = System.nanoTime();
            progress.tick(phase, now - begin, total(), now);
        }
    }

    /** Tells the users to finish their transaction, waits (interrupting after 30 s), closes sessions. */
    private static void stop(AtomicBoolean running, List<Thread> threads, List<MixedUser> workers) {
        running.set(false);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (Thread t : threads) {
            join(t, deadline - System.nanoTime());
        }
        for (Thread t : threads) {
            if (t.isAlive()) {
                t.interrupt();
                join(t, TimeUnit.SECONDS.toNanos(5));
            }
        }
        threads.clear();
        for (MixedUser u : workers) {
            try {
                u.close();
            } catch (Exception ignored) {
                // a broken session: its connection goes back to the pool, which evicts it
            }
        }
        workers.clear();
    }

    private static void join(Thread t, long nanos) {
        if (nanos <= 0) {
            return;
        }
        try {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void dropQueue() throws Exception {
        try {
            factory.broker().admin().queues().drop(QUEUE, true);
        } catch (ShardQException notThere) {
            // a clean database: nothing left from a previous run
        }
    }

    /** Drops the queue and the application tables; safe after a failed {@link #setUp()} and twice. */
    @Override
    public void close() throws Exception {
        Exception failure = null;
        try {
            if (connection != null) {
                connection.close();
                connection = null;
            }
            if (factory != null) {
                dropQueue();
            }
        } catch (Exception e) {
            failure = e;
        } finally {
            if (factory != null) {
                factory.close();
                factory = null;
            }
        }
        if (tablesCreated) {
            tablesCreated = false;
            tables.drop();
        }
        if (failure != null) {
            throw failure;
        }
    }
}

package io.shardq.perf;

import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.jms.ShardQConnectionFactory;
import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Runs {@code perf delay} through the JMS API on one connection factory (one ShardQ instance,
 * which is the maintenance leader and so runs the {@code ScheduledMover}):
 *
 * <ol>
 *   <li>a fresh queue; the consumers start and wait;
 *   <li><b>scheduling</b>: the producers send every message with the delay that makes it due at
 *       its drawn time ({@code first due + uniform(0, spread)}), in random order of due time,
 *       {@code batch} per commit;
 *   <li><b>delivering</b>: the consumers receive until every message arrived or the drain timeout
 *       after the last due time passed. Each delivery's lateness ({@link DelayResult}) goes to one
 *       histogram of the run and one of its due second; its sequence number to a bit set, so a
 *       duplicate or a missing message is counted, never guessed.
 * </ol>
 *
 * The server's counters ({@link SqlCounters}) and the WAL position are read at the start, at the
 * end of the scheduling and after the last delivery (once the statistics are flushed).
 */
final class DelayRunner {
    static final String QUEUE = "perf.delay";
    private static final long ERROR_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long PROGRESS_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final DataSource dataSource;
    private final Supplier<BrokerConfig.Builder> brokerConfig;
    private final PrintWriter progress;
    private final ServerProbe probe;
    private final SqlCounters counters;

    private final LongAdder delivered = new LongAdder();
    private final LongAdder duplicates = new LongAdder();
    private final LongAdder early = new LongAdder();
    private final LongAdder lateSends = new LongAdder();
    private final LongAdder scheduled = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final AtomicLong minLateness = new AtomicLong(Long.MAX_VALUE);
    private final AtomicLong lastDeliveryMillis = new AtomicLong();
    private final AtomicReference<Throwable> firstError = new AtomicReference<>();
    private final Histogram lateness = new ConcurrentHistogram(LatencyStats.HIGHEST_MICROS, LatencyStats.DIGITS);
    private Histogram[] bySecond;
    private volatile long firstDueMillis;
    private BitSet seen;
    private volatile boolean consuming = true;

    DelayRunner(DataSource dataSource, Supplier<BrokerConfig.Builder> brokerConfig, PrintWriter progress) {
        this.dataSource = dataSource;
        this.brokerConfig = brokerConfig;
        this.progress = progress;
        this.probe = new ServerProbe(dataSource);
        this.counters = new SqlCounters(dataSource);
    }

    /** Whether statements are counted (pg_stat_statements), for the header printed before the run. */
    boolean statementsCounted() {
        return counters.statementsAvailable();
    }

    DelayResult run(DelayScenario sc) throws Exception {
        seen = new BitSet(sc.messages());
        int seconds = (int) Math.max(1, (sc.spread().toMillis() + 999) / 1000);
        bySecond = new Histogram[seconds];
        for (int i = 0; i < seconds; i++) {
            bySecond[i] = new ConcurrentHistogram(LatencyStats.HIGHEST_MICROS, LatencyStats.DIGITS);
        }
        BrokerConfig config = brokerConfig
                .get()
                .set(BrokerProperty.AUTO_CREATE_DESTINATIONS, false)
                .set(BrokerProperty.POOL_SIZE, Math.max(32, sc.producers() + sc.consumers() + sc.shards() + 8))
                .build();
        try (ShardQConnectionFactory factory = new ShardQConnectionFactory(config)) {
            ShardQSystem.freshQueue(factory, QUEUE, sc.shards());
            try (Connection connection = factory.createConnection()) {
                connection.start();
                try {
                    return measure(sc, factory, connection);
                } finally {
                    consuming = false;
                }
            } finally {
                factory.broker().admin().queues().drop(QUEUE, true);
            }
        }
    }

    private DelayResult measure(DelayScenario sc, ShardQConnectionFactory factory, Connection connection)
            throws Exception {
        List<Thread> consumers = new ArrayList<>();
        for (int i = 0; i < sc.consumers(); i++) {
            Session session = connection.createSession(true, Session.SESSION_TRANSACTED);
            MessageConsumer consumer = session.createConsumer(session.createQueue(QUEUE));
            consumers.add(thread("consumer-" + i, () -> consume(session, consumer, sc)));
        }
        List<Thread> producers = new ArrayList<>();
        // a previous run's million deletes may still wait for autovacuum: their dead index entries
        // at the low end of (deliver_at, id) would slow this run's mover from its first round
        probe.vacuum("shardq.scheduled_message");
        probe.checkpoint();
        SqlCounters.Snapshot s0 = counters.snapshot();
        Optional<String> wal0 = probe.currentWalLsn();
        long reads0 = factory.broker().stats().dequeueSqlReads();
        long startNanos = System.nanoTime();
        long firstDue = System.currentTimeMillis() + sc.lead().toMillis();
        firstDueMillis = firstDue;
        for (int i = 0; i < sc.producers(); i++) {
            Session session = connection.createSession(true, Session.SESSION_TRANSACTED);
            int from = (int) ((long) sc.messages() * i / sc.producers());
            int to = (int) ((long) sc.messages() * (i + 1) / sc.producers());
            long seed = i;
            producers.add(thread("producer-" + i, () -> produce(session, sc, firstDue, from, to, seed)));
        }
        consumers.forEach(Thread::start);
        producers.forEach(Thread::start);
        long lastTick = startNanos;
        for (Thread p : producers) {
            while (p.isAlive()) {
                p.join(250);
                lastTick = tick("schedule", startNanos, lastTick, sc.messages());
            }
        }
        long scheduleNanos = System.nanoTime() - startNanos;
        SqlCounters.Snapshot s1 = counters.snapshot();
        long lastDue = firstDue + sc.spread().toMillis();
        long deadline = Math.max(lastDue, System.currentTimeMillis())
                + sc.drainTimeout().toMillis();
        while (delivered.sum() < scheduled.sum() && System.currentTimeMillis() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            lastTick = tick("deliver", startNanos, lastTick, sc.messages());
        }
        consuming = false;
        for (Thread c : consumers) {
            c.join(TimeUnit.SECONDS.toMillis(30));
        }
        Optional<String> wal2 = probe.currentWalLsn();
        long reads2 = factory.broker().stats().dequeueSqlReads();
        Thread.sleep(Runner.STATS_FLUSH_WAIT.toMillis()); // pg_stat_database is reported at most once a second
        SqlCounters.Snapshot s2 = counters.snapshot();
        long left = factory.broker().admin().queues().stats(QUEUE).scheduled();
        return result(sc, firstDue, scheduleNanos, s0, s1, s2, wal0, wal2, reads2 - reads0, left);
    }

    private long tick(String phase, long startNanos, long lastTick, int total) {
        long now = System.nanoTime();
        if (now - lastTick < PROGRESS_NANOS) {
            return lastTick;
        }
        progress.println(String.format(
                Locale.ROOT,
                "%-9s %5.0fs  scheduled %,d of %,d  delivered %,d  early %,d  late p99 so far %s ms",
                phase,
                (now - startNanos) / 1e9,
                scheduled.sum(),
                total,
                delivered.sum(),
                early.sum(),
                Numbers.millis(
                        lateness.getTotalCount() == 0 ? Double.NaN : lateness.getValueAtPercentile(99) / 1000.0)));
        progress.flush();
        return now;
    }

    private void produce(Session session, DelayScenario sc, long firstDue, int from, int to, long seed) {
        try (session) {
            MessageProducer producer = session.createProducer(session.createQueue(QUEUE));
            producer.setDeliveryMode(DeliveryMode.PERSISTENT);
            producer.setDisableMessageTimestamp(true);
            byte[] template = Payloads.filler(sc.payloadBytes(), seed);
            SplittableRandom random = new SplittableRandom(seed);
            long spread = sc.spread().toMillis();
            int inBatch = 0;
            for (int k = from; k < to; k++) {
                long due = firstDue + random.nextLong(spread);
                long delay = due - System.currentTimeMillis();
                if (delay < 1) {
                    lateSends.increment();
                    delay = 1;
                }
                producer.setDeliveryDelay(delay);
                BytesMessage m = session.createBytesMessage();
                m.writeBytes(Payloads.stamped(template, due * 1000, k));
                producer.send(m);
                if (++inBatch == sc.batch() || k == to - 1) {
                    session.commit();
                    scheduled.add(inBatch);
                    inBatch = 0;
                }
            }
        } catch (Exception e) {
            failed(e); // a producer that failed stops: its messages are then missing, and the run says so
        }
    }

    private void consume(Session session, MessageConsumer consumer, DelayScenario sc) {
        List<long[]> got = new ArrayList<>(sc.batch()); // {sequence, lateness micros, due millis}
        try (session) {
            while (consuming) {
                got.clear();
                try {
                    Message m = consumer.receive(Load.RECEIVE_WAIT.toMillis());
                    while (m != null) {
                        Instant now = Instant.now();
                        long nowMicros = now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
                        long due = m.getJMSDeliveryTime();
                        BytesMessage b = (BytesMessage) m;
                        byte[] payload = new byte[(int) b.getBodyLength()];
                        b.readBytes(payload);
                        got.add(new long[] {Payloads.sequence(payload), nowMicros - due * 1000, due});
                        m = got.size() < sc.batch() ? consumer.receiveNoWait() : null;
                    }
                    if (!got.isEmpty()) {
                        session.commit();
                        record(got);
                    }
                } catch (Exception e) {
                    failed(e);
                }
            }
        } catch (Exception e) {
            failed(e);
        }
    }

    /** After the consumer's commit: the batch counts. */
    private void record(List<long[]> got) {
        synchronized (seen) {
            for (long[] g : got) {
                int seq = (int) g[0];
                if (seen.get(seq)) {
                    duplicates.increment();
                } else {
                    seen.set(seq);
                }
            }
        }
        for (long[] g : got) {
            long late = g[1];
            if (late < 0) {
                early.increment();
            }
            minLateness.accumulateAndGet(late, Math::min);
            lateness.recordValue(LatencyStats.clamp(late));
            bySecond(g[2]).recordValue(LatencyStats.clamp(late));
        }
        delivered.add(got.size());
        lastDeliveryMillis.accumulateAndGet(System.currentTimeMillis(), Math::max);
    }

    private Histogram bySecond(long dueMillis) {
        int i = (int) Math.min(bySecond.length - 1, Math.max(0, (dueMillis - firstDueMillis) / 1000));
        return bySecond[i];
    }

    private void failed(Exception e) {
        if (!consuming) {
            return;
        }
        errors.increment();
        firstError.compareAndSet(null, e);
        LockSupport.parkNanos(ERROR_PAUSE_NANOS);
    }

    private Thread thread(String role, Runnable body) {
        Thread t = new Thread(body, "shardq-perf-delay-" + role);
        t.setDaemon(true);
        return t;
    }

    private DelayResult result(
            DelayScenario sc,
            long firstDue,
            long scheduleNanos,
            SqlCounters.Snapshot s0,
            SqlCounters.Snapshot s1,
            SqlCounters.Snapshot s2,
            Optional<String> wal0,
            Optional<String> wal2,
            long reads,
            long left) {
        long n = delivered.sum();
        long missing;
        synchronized (seen) {
            missing = scheduled.sum() - seen.cardinality();
        }
        List<DelayResult.Second> timeline = new ArrayList<>();
        for (int i = 0; i < bySecond.length; i++) {
            Histogram h = bySecond[i];
            if (h.getTotalCount() > 0) {
                timeline.add(new DelayResult.Second(
                        i, h.getTotalCount(), h.getValueAtPercentile(50), h.getValueAtPercentile(99), h.getMaxValue()));
            }
        }
        Throwable error = firstError.get();
        return new DelayResult(
                scheduled.sum(),
                lateSends.sum(),
                Rates.seconds(scheduleNanos),
                n,
                duplicates.sum(),
                missing,
                early.sum(),
                n == 0 ? 0 : minLateness.get(),
                LatencyStats.of(lateness),
                n == 0 ? Double.NaN : Math.max(0, lastDeliveryMillis.get() - firstDue) / 1000.0,
                left,
                SqlCounters.between(s0, s1, 10),
                SqlCounters.between(s1, s2, 10),
                wal0.isPresent() && wal2.isPresent()
                        ? WalDelta.between(wal0.get(), wal2.get()).bytesPerMessage(n)
                        : Double.NaN,
                Rates.perMessage(reads, n),
                timeline,
                errors.sum(),
                error == null ? null : Runner.describe(error),
                LoadAverage.now());
    }
}

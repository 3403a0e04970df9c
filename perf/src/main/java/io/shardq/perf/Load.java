package io.shardq.perf;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The worker threads of one step: P producers sending batches as fast as they can and P
 * consumers receiving them, each thread with its own {@link QueueSystem.Producer} or {@link
 * QueueSystem.Consumer}. Counters are cumulative from {@link #start()}; latencies go to an
 * HdrHistogram {@link Recorder}, whose interval histogram the runner takes at the start and the
 * end of the measured window.
 *
 * <p>A failing call is counted, the first failure kept for the report, and the thread pauses
 * 50 ms before trying again, so one bad moment does not end a run but a broken system shows as
 * errors and no throughput. Threads are named {@code shardq-perf-<system>-<role>-<n>}.
 */
final class Load {
    /** How long a consumer waits for messages per call: bounds how long {@link #stop()} takes. */
    static final Duration RECEIVE_WAIT = Duration.ofMillis(100);

    private static final long ERROR_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final QueueSystem system;
    private final Settings settings;
    private final MicroClock clock;
    private final LongAdder enqueued = new LongAdder();
    private final LongAdder dequeued = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final AtomicReference<Throwable> firstError = new AtomicReference<>();
    private final AtomicLong sequence = new AtomicLong();
    private final Recorder latency = new Recorder(LatencyStats.HIGHEST_MICROS, LatencyStats.DIGITS);
    private final List<Thread> threads = new ArrayList<>();
    private final List<AutoCloseable> workers = new ArrayList<>();
    private final List<Thread> producerThreads = new ArrayList<>();
    private volatile boolean running;
    private volatile boolean producing;

    Load(QueueSystem system, Settings settings, MicroClock clock) {
        this.system = system;
        this.settings = settings;
        this.clock = clock;
    }

    /** Creates the producers and consumers on this thread, then starts one thread for each. */
    void start() throws Exception {
        running = true;
        producing = true;
        for (int i = 0; i < system.localThreads(settings); i++) {
            QueueSystem.Producer p = system.producer();
            workers.add(p);
            long seed = i;
            Thread t = thread("producer-" + i, () -> produce(p, seed));
            producerThreads.add(t);
            threads.add(t);
        }
        if (system.consumes()) {
            for (int i = 0; i < system.consumerThreads(settings); i++) {
                QueueSystem.Consumer c = system.consumer();
                workers.add(c);
                threads.add(thread("consumer-" + i, () -> consume(c)));
            }
        }
        threads.forEach(Thread::start);
    }

    private Thread thread(String role, Runnable body) {
        Thread t = new Thread(body, "shardq-perf-" + system.name() + "-" + role);
        t.setDaemon(true);
        return t;
    }

    private void produce(QueueSystem.Producer producer, long seed) {
        byte[] template = Payloads.filler(settings.payloadBytes(), seed);
        int n = settings.batchSize();
        List<byte[]> batch = new ArrayList<>(n);
        while (running && producing) {
            batch.clear();
            long first = sequence.getAndAdd(n);
            long now = clock.nowMicros();
            for (int i = 0; i < n; i++) {
                batch.add(Payloads.stamped(template, now, first + i));
            }
            try {
                producer.sendBatch(batch);
                enqueued.add(n);
            } catch (Exception e) {
                failed(e);
            }
        }
    }

    private void consume(QueueSystem.Consumer consumer) {
        int n = settings.batchSize();
        while (running) {
            try {
                List<QueueSystem.Delivery> got = consumer.receiveBatch(n, RECEIVE_WAIT);
                long now = clock.nowMicros();
                for (QueueSystem.Delivery d : got) {
                    latency.recordValue(LatencyStats.clamp(now - d.sentMicros()));
                }
                dequeued.add(got.size());
            } catch (Exception e) {
                failed(e);
            }
        }
    }

    private void failed(Exception e) {
        if (!running) {
            return; // stopping: the system may already be closing connections
        }
        errors.increment();
        firstError.compareAndSet(null, e);
        LockSupport.parkNanos(ERROR_PAUSE_NANOS);
    }

    long enqueued() {
        return enqueued.sum();
    }

    long dequeued() {
        return dequeued.sum();
    }

    long errors() {
        return errors.sum();
    }

    Throwable firstError() {
        return firstError.get();
    }

    /** Latencies recorded since the previous call, which starts a new interval. */
    Histogram takeLatencies() {
        return latency.getIntervalHistogram();
    }

    /**
     * Stops the producers (each finishes its current batch), then lets the consumers run until they
     * have received {@code sent x deliveriesPerMessage} or the timeout passes. Returns whether they
     * did. {@link #stop()} stops the consumers afterwards.
     */
    boolean drain(long deliveriesPerMessage, Duration timeout) {
        producing = false;
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Thread t : producerThreads) {
            joinUntil(t, deadline);
        }
        while (dequeued() < enqueued() * deliveriesPerMessage) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
        return true;
    }

    /**
     * Tells every thread to finish its current call, waits for them (interrupting after 30 s),
     * then closes the producers and consumers. Safe to call twice, and before {@link #start()}.
     */
    void stop() {
        running = false;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (Thread t : threads) {
            joinUntil(t, deadline);
        }
        for (Thread t : threads) {
            if (t.isAlive()) {
                t.interrupt();
                joinUntil(t, System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
            }
        }
        threads.clear();
        producerThreads.clear();
        for (AutoCloseable w : workers) {
            try {
                w.close();
            } catch (Exception e) {
                firstError.compareAndSet(null, e);
            }
        }
        workers.clear();
    }

    private static void joinUntil(Thread t, long deadlineNanos) {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
            return;
        }
        try {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

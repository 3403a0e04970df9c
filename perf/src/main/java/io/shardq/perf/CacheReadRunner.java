package io.shardq.perf;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * Runs {@code perf cache-read}: sets every system up empty, then for each size ascending loads the
 * entries missing into every system (checking the count), and measures the steps due at that size
 * ({@link CacheReadScenario#threadsAt}), one system after the other, in the order given at the
 * first step and reversed at every second one. After each load the database is vacuumed, analyzed
 * and checkpointed, so that no step runs while autovacuum or a checkpoint works on another
 * system's fresh rows (the first system measured used to pay for both loads), and before the
 * first step every system reads for one warm-up and one more, unreported, so the JIT has compiled
 * the read paths before anything is measured.
 *
 * <p>A step: T threads read uniformly random keys, each on its own reader, with no pause; after
 * the warm-up the threads record each read's time (nanoTime around the one call; the key is made
 * before) into their own histogram until the window ends. Reads per second are the window's
 * reads over its length (the key's making, about a microsecond, included).
 */
final class CacheReadRunner {
    static final int LOAD_THREADS = 4;

    private final Progress progress;
    /** Run after each load: vacuum, analyze and checkpoint, so no step pays for another's load. */
    private final Runnable settle;

    final List<LoadResult> loads = new ArrayList<>();

    CacheReadRunner(Progress progress, Runnable settle) {
        this.progress = progress;
        this.settle = settle;
    }

    List<ReadStep> run(CacheReadScenario sc, List<ReadSystem> systems) throws Exception {
        RouteData data = new RouteData(sc.valueBytes());
        for (ReadSystem s : systems) {
            s.setUp();
        }
        List<ReadStep> steps = new ArrayList<>();
        long loaded = 0;
        int round = 0;
        boolean warmed = false;
        for (int size : sc.loadedSizes()) {
            for (ReadSystem s : systems) {
                LoadResult l = load(s, data, loaded, size);
                loads.add(l);
                progress.note(String.format(
                        Locale.ROOT,
                        "load %-7s %,d -> %,d entries in %.1f s (%,.0f entries/s), stored %,d%s",
                        s.name(),
                        l.from(),
                        l.to(),
                        l.seconds(),
                        l.entriesPerSecond(),
                        l.stored(),
                        l.balanced() ? "" : "  NOT BALANCED"));
            }
            settle.run();
            if (!warmed && !sc.threadsAt(size).isEmpty()) {
                warmed = true;
                // one unreported round of every system first: the JIT compiles the paths (pgjdbc's
                // shared by all) while nobody is measured, not during the first system's step
                int threads = java.util.Collections.max(sc.threadsAt(size));
                for (ReadSystem s : systems) {
                    step(s, size, threads, sc.warmup(), sc.warmup());
                }
            }
            loaded = size;
            for (int threads : sc.threadsAt(size)) {
                // the systems' order alternates from one step to the next, so that none is always
                // the first after a load or always the one measured while the machine warms
                List<ReadSystem> order = new ArrayList<>(systems);
                if (round++ % 2 == 1) {
                    java.util.Collections.reverse(order);
                }
                for (ReadSystem s : order) {
                    ReadStep r = step(s, size, threads, sc.warmup(), sc.duration());
                    steps.add(r);
                    progress.note(String.format(
                            Locale.ROOT,
                            "read %-7s %,9d entries x%-3d %,9.0f reads/s  p50 %s us  p99 %s us%s  (load %s)",
                            s.name(),
                            size,
                            threads,
                            r.readsPerSecond(),
                            Numbers.decimal(ReadStep.micros(r.p50Nanos()), 1),
                            Numbers.decimal(ReadStep.micros(r.p99Nanos()), 1),
                            r.ok() ? "" : "  missing " + r.missing() + ", errors " + r.errors(),
                            r.loadAtEnd()));
                }
            }
        }
        return steps;
    }

    /** Adds entries [from, to) in batches, on {@link #LOAD_THREADS} threads. */
    static LoadResult load(ReadSystem system, RouteData data, long from, long to) throws Exception {
        int batch = KvReadSystem.LOAD_BATCH;
        AtomicLong next = new AtomicLong(from);
        AtomicLong errors = new AtomicLong();
        AtomicReference<Throwable> first = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        long started = System.nanoTime();
        for (int t = 0; t < LOAD_THREADS; t++) {
            Thread th = new Thread(
                    () -> {
                        for (long b = next.getAndAdd(batch); b < to; b = next.getAndAdd(batch)) {
                            long end = Math.min(to, b + batch);
                            List<String> keys = new ArrayList<>((int) (end - b));
                            List<byte[]> values = new ArrayList<>((int) (end - b));
                            for (long i = b; i < end; i++) {
                                keys.add(RouteData.key(i));
                                values.add(data.value(i));
                            }
                            try {
                                system.load(keys, values);
                            } catch (Exception | Error e) {
                                errors.incrementAndGet();
                                first.compareAndSet(null, e);
                            }
                        }
                    },
                    "perf-load-" + t);
            th.start();
            threads.add(th);
        }
        for (Thread th : threads) {
            th.join();
        }
        double seconds = Rates.seconds(System.nanoTime() - started);
        return new LoadResult(
                system.name(),
                from,
                to,
                seconds,
                system.stored(),
                errors.get(),
                first.get() == null ? null : Runner.describe(first.get()));
    }

    /** One system at one size and thread count. */
    ReadStep step(ReadSystem system, int entries, int threads, Duration warmup, Duration duration) throws Exception {
        Worker[] workers = new Worker[threads];
        List<Thread> running = new ArrayList<>();
        Phase phase = new Phase();
        for (int t = 0; t < threads; t++) {
            workers[t] = new Worker(system.reader(), entries, phase);
            Thread th = new Thread(workers[t], "perf-read-" + t);
            th.start();
            running.add(th);
        }
        sleep(warmup);
        long served0 = system.servedCount();
        long t0 = System.nanoTime();
        phase.value = Phase.MEASURE;
        sleep(duration);
        phase.value = Phase.STOP;
        long t1 = System.nanoTime();
        for (Thread th : running) {
            th.join();
        }
        long served1 = system.servedCount();
        Histogram all = ReadStep.newHistogram();
        long missing = 0;
        long errors = 0;
        String firstError = null;
        for (Worker w : workers) {
            all.add(w.histogram);
            missing += w.missing;
            errors += w.errors;
            if (firstError == null && w.firstError != null) {
                firstError = Runner.describe(w.firstError);
            }
        }
        return ReadStep.of(
                system.name(),
                entries,
                threads,
                Rates.seconds(t1 - t0),
                all,
                missing,
                served0 < 0 || served1 < 0 ? -1 : served1 - served0,
                errors,
                firstError,
                LoadAverage.now());
    }

    private static final class Phase {
        static final int WARMUP = 0;
        static final int MEASURE = 1;
        static final int STOP = 2;
        volatile int value = WARMUP;
    }

    /** One reading thread; its fields are read after it is joined. */
    private static final class Worker implements Runnable {
        final ReadSystem.Reader reader;
        final int entries;
        final Phase phase;
        final Histogram histogram = ReadStep.newHistogram();
        long missing;
        long errors;
        Throwable firstError;

        Worker(ReadSystem.Reader reader, int entries, Phase phase) {
            this.reader = reader;
            this.entries = entries;
            this.phase = phase;
        }

        @Override
        public void run() {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            try (reader) {
                int p;
                while ((p = phase.value) != Phase.STOP) {
                    String key = RouteData.key(random.nextInt(entries));
                    long t0 = System.nanoTime();
                    byte[] v;
                    try {
                        v = reader.get(key);
                    } catch (Exception | Error e) {
                        if (p == Phase.MEASURE) {
                            errors++;
                            if (firstError == null) {
                                firstError = e;
                            }
                        }
                        continue;
                    }
                    long nanos = System.nanoTime() - t0;
                    if (p == Phase.MEASURE) {
                        histogram.recordValue(Math.min(ReadStep.HIGHEST_NANOS, Math.max(0, nanos)));
                        if (v == null) {
                            missing++;
                        }
                    }
                }
            } catch (Exception e) {
                errors++;
                if (firstError == null) {
                    firstError = e;
                }
            }
        }
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(Math.max(1, d.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("benchmark interrupted", e);
        }
    }
}

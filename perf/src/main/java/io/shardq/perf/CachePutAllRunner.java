package io.shardq.perf;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs {@code perf cache-putall}: for each run, each system writes every entry into an empty store
 * and is checked. The entries are built before the clock starts; the threads each take an equal
 * share of them, wait on one start signal, and write their batches one after another. The time is
 * from the signal to the last thread's last batch returning. A checkpoint precedes each write, so
 * each pays the same full-page images. Before the reported runs, {@code warmupRuns} writes of each
 * system (the same work, not reported) warm the JIT, the pools' connections and their prepared
 * statements, so the first reported run is not the JVM's first.
 */
final class CachePutAllRunner {
    private final ServerProbe probe;
    private final Progress progress;

    CachePutAllRunner(ServerProbe probe, Progress progress) {
        this.probe = probe;
        this.progress = progress;
    }

    /** Runs each system in turn, in the order given in odd runs and reversed in even ones. */
    List<PutAllRun> run(CachePutAllScenario sc, List<PutAllSystem> systems) throws Exception {
        List<List<byte[]>[]> batches = batches(sc);
        List<PutAllSystem> reversed = new ArrayList<>(systems);
        java.util.Collections.reverse(reversed);
        for (int w = 1; w <= sc.warmupRuns(); w++) {
            for (PutAllSystem system : systems) {
                PutAllRun r = write(0, system, sc, batches);
                progress.note(String.format(
                        java.util.Locale.ROOT,
                        "warm-up %d %-9s %,10.1f ms (not reported)%s",
                        w,
                        system.name(),
                        r.millis(),
                        r.balanced() ? "" : "  NOT BALANCED: " + r.stored() + " stored, " + r.errors() + " errors"));
            }
        }
        List<PutAllRun> out = new ArrayList<>();
        for (int run = 1; run <= sc.runs(); run++) {
            List<PutAllSystem> order = run % 2 == 1 ? systems : reversed;
            for (PutAllSystem system : order) {
                PutAllRun r = write(run, system, sc, batches);
                out.add(r);
                progress.note(String.format(
                        java.util.Locale.ROOT,
                        "run %d %-9s %,10.1f ms  %,8.0f entries/s  stored %,d%s  (load %s)",
                        run,
                        system.name(),
                        r.millis(),
                        r.entriesPerSecond(),
                        r.stored(),
                        r.balanced() ? "" : "  NOT BALANCED",
                        r.loadAtEnd()));
            }
        }
        return out;
    }

    private PutAllRun write(int run, PutAllSystem system, CachePutAllScenario sc, List<List<byte[]>[]> batches)
            throws Exception {
        system.setUp();
        probe.checkpoint();
        AtomicLong errors = new AtomicLong();
        AtomicReference<Throwable> first = new AtomicReference<>();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < sc.threads(); t++) {
            int from = (int) ((long) batches.size() * t / sc.threads());
            int to = (int) ((long) batches.size() * (t + 1) / sc.threads());
            Thread th = new Thread(
                    () -> {
                        try {
                            go.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return;
                        }
                        for (int b = from; b < to; b++) {
                            try {
                                system.putAll(batches.get(b)[0], batches.get(b)[1]);
                            } catch (Exception | Error e) {
                                errors.incrementAndGet();
                                first.compareAndSet(null, e);
                            }
                        }
                    },
                    "perf-putall-" + t);
            th.start();
            threads.add(th);
        }
        Optional<String> walStart = probe.currentWalLsn();
        long started = System.nanoTime();
        go.countDown();
        for (Thread th : threads) {
            th.join();
        }
        long nanos = System.nanoTime() - started;
        Optional<String> walEnd = probe.currentWalLsn();
        long wal = walStart.isPresent() && walEnd.isPresent()
                ? WalDelta.between(walStart.get(), walEnd.get()).bytes()
                : -1;
        return new PutAllRun(
                run,
                system.name(),
                sc.entries(),
                nanos / 1e6,
                system.stored(),
                wal,
                errors.get(),
                first.get() == null ? null : Runner.describe(first.get()),
                LoadAverage.now());
    }

    /** Every batch as {keys, values}, in entry order. */
    @SuppressWarnings("unchecked")
    static List<List<byte[]>[]> batches(CachePutAllScenario sc) {
        RouteData data = new RouteData(sc.valueBytes());
        List<List<byte[]>[]> out = new ArrayList<>();
        for (int from = 0; from < sc.entries(); from += sc.batch()) {
            int to = Math.min(sc.entries(), from + sc.batch());
            List<byte[]> keys = new ArrayList<>(to - from);
            List<byte[]> values = new ArrayList<>(to - from);
            for (int i = from; i < to; i++) {
                keys.add(RouteData.keyBytes(i));
                values.add(data.value(i));
            }
            out.add(new List[] {keys, values});
        }
        return out;
    }
}

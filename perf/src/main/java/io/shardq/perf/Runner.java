package io.shardq.perf;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.HdrHistogram.Histogram;

/**
 * Runs a {@link Scenario}: for each threads value, for each system, one step.
 *
 * <p>A step: {@code setUp} (fresh tables), a checkpoint, P producer and P consumer threads
 * started, the warm-up, a snapshot, the measured window, a snapshot, the workers stopped, a
 * pause for the server's table statistics to flush, end-of-step figures, {@code tearDown}. The
 * references run in the same process against the same server with the same settings as ShardQ,
 * so their rates are comparable with it even where absolute numbers are not.
 *
 * <p>Only this thread talks to the system object; workers use their own producer or consumer.
 */
final class Runner {
    /** Backends flush table statistics at most once a second; wait a little longer than that. */
    static final Duration STATS_FLUSH_WAIT = Duration.ofMillis(1200);

    private static final long TICK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final DataSource dataSource;
    private final SystemRegistry registry;
    private final MicroClock clock;
    private final Progress progress;
    private final ServerProbe probe;
    private final CpuMeter cpu;
    private Duration drainTimeout;

    Runner(DataSource dataSource, SystemRegistry registry, MicroClock clock, Progress progress) {
        this.dataSource = dataSource;
        this.registry = registry;
        this.clock = clock;
        this.progress = progress;
        this.probe = new ServerProbe(dataSource);
        this.cpu = CpuMeter.probe(probe);
    }

    /**
     * After each measured window, stop the producers and let the consumers receive everything sent
     * (up to {@code timeout}) before stopping them, so a system's own totals balance: every message
     * sent is received {@link QueueSystem#deliveriesPerMessage()} times. Off by default.
     */
    Runner draining(Duration timeout) {
        this.drainTimeout = timeout;
        return this;
    }

    List<StepResult> run(Scenario scenario) throws Exception {
        List<StepResult> results = new ArrayList<>();
        for (int threads : scenario.threads()) {
            for (String name : scenario.systems()) {
                QueueSystem system = registry.create(name);
                try {
                    results.add(step(system, scenario.settingsFor(threads), scenario.warmup(), scenario.duration()));
                } catch (Exception e) {
                    if (Thread.currentThread().isInterrupted()) {
                        throw e;
                    }
                    progress.note(name + " x" + threads + " failed: " + describe(e));
                    results.add(StepResult.failed(name, threads, system.consumes(), describe(e)));
                }
            }
        }
        return results;
    }

    /** One system at one threads value. */
    StepResult step(QueueSystem system, Settings settings, Duration warmup, Duration duration) throws Exception {
        Load load = new Load(system, settings, clock);
        try {
            system.setUp(dataSource, settings);
            probe.checkpoint();
            progress.begin(system.name() + " x" + settings.threads(), System.nanoTime(), system.deliveriesPerMessage());
            load.start();
            pace(load, system, "warm-up", System.nanoTime(), warmup);
            system.peers().addLatencies(load.takeLatencies()); // the warm-up's latencies are dropped
            system.innerSteps(); // and so are its inner step timings
            Snapshot start = snapshot(load, system, List.of());
            system.measureStarts();
            pace(load, system, "measure", start.nanos(), duration);
            Snapshot end = snapshot(load, system, start.serverTicks().keySet());
            Histogram latencies = load.takeLatencies();
            system.peers().addLatencies(latencies);
            noteInstances(system, settings, start, end);
            List<InnerStep> inner = system.innerSteps();
            system.measureEnds();
            progress.end();
            if (drainTimeout != null && system.consumes() && !load.drain(system.deliveriesPerMessage(), drainTimeout)) {
                progress.note(system.name() + " x" + settings.threads() + ": consumers had not received everything "
                        + drainTimeout.toSeconds() + " s after the producers stopped");
            }
            load.stop();
            sleep(STATS_FLUSH_WAIT);
            ServerProbe.TableStats tables = probe.tableStats(system.tables());
            return result(system, settings, load, start, end, latencies, system.backlog(), tables, inner);
        } finally {
            load.stop();
            progress.end();
            system.tearDown();
        }
    }

    /** Waits until {@code begin + length}, ticking the progress line every second. */
    private void pace(Load load, QueueSystem system, String phase, long begin, Duration length) {
        long deadline = begin + length.toNanos();
        long now = System.nanoTime();
        while (now < deadline) {
            sleep(Duration.ofNanos(Math.min(TICK_NANOS - (now - begin) % TICK_NANOS, deadline - now)));
            now = System.nanoTime();
            long[] peers = sum(system.peers().counts());
            progress.tick(
                    phase, now - begin, load.enqueued() + peers[0], load.dequeued() + peers[1], system.consumes(), now);
        }
    }

    private Snapshot snapshot(Load load, QueueSystem system, Iterable<Integer> alsoPids) {
        long nanos = System.nanoTime();
        List<long[]> instances = new ArrayList<>();
        instances.add(new long[] {load.enqueued(), load.dequeued()});
        instances.addAll(system.peers().counts());
        long[] all = sum(instances);
        long enqueued = all[0];
        long dequeued = all[1];
        OptionalLong reads = system.sqlReads();
        long jvm = CpuMeter.jvmNanos();
        Optional<String> lsn = probe.currentWalLsn();
        Map<Integer, Long> ticks = cpu.serverTicks(alsoPids);
        long commits = probe.xactCommits();
        return new Snapshot(nanos, enqueued, dequeued, reads, lsn, jvm, ticks, commits, instances);
    }

    private static long[] sum(List<long[]> counts) {
        long[] total = new long[2];
        for (long[] c : counts) {
            total[0] += c[0];
            total[1] += c[1];
        }
        return total;
    }

    /** With peer instances, what each instance enqueued and dequeued in the window, as a note. */
    private void noteInstances(QueueSystem system, Settings settings, Snapshot a, Snapshot b) {
        if (system.peers().isEmpty()) {
            return;
        }
        StringBuilder line = new StringBuilder(system.name() + " x" + settings.threads() + " per instance:");
        for (int i = 0; i < b.instances().size(); i++) {
            long[] from = a.instances().get(i);
            long[] to = b.instances().get(i);
            line.append(String.format(
                    java.util.Locale.ROOT,
                    " #%d%s enqueued %,.0f/s dequeued %,.0f/s;",
                    i + 1,
                    i == 0 ? " (this JVM)" : "",
                    Rates.perSecond(to[0] - from[0], b.nanos() - a.nanos()),
                    Rates.perSecond(to[1] - from[1], b.nanos() - a.nanos())));
        }
        line.setLength(line.length() - 1);
        progress.note(line.toString());
    }

    private StepResult result(
            QueueSystem system,
            Settings settings,
            Load load,
            Snapshot a,
            Snapshot b,
            Histogram latencies,
            long backlog,
            ServerProbe.TableStats tables,
            List<InnerStep> inner) {
        long nanos = b.nanos() - a.nanos();
        long enqueued = b.enqueued() - a.enqueued();
        long dequeued = b.dequeued() - a.dequeued();
        boolean consumes = system.consumes();
        double wal = a.walLsn().isPresent() && b.walLsn().isPresent()
                ? WalDelta.between(a.walLsn().get(), b.walLsn().get()).bytesPerMessage(enqueued)
                : Double.NaN;
        double reads = a.reads().isPresent() && b.reads().isPresent()
                ? Rates.perMessage(b.reads().getAsLong() - a.reads().getAsLong(), dequeued)
                : Double.NaN;
        double jvm = a.jvmNanos() < 0 ? Double.NaN : Rates.seconds(b.jvmNanos() - a.jvmNanos());
        long pg = cpu.serverNanosBetween(a.serverTicks(), b.serverTicks());
        // -1 when unreadable at either end, or when the statistics were reset in between
        long commits = a.commits() < 0 || b.commits() < a.commits() ? -1 : b.commits() - a.commits();
        Throwable error = load.firstError();
        return new StepResult(
                system.name(),
                settings.threads(),
                consumes,
                Rates.seconds(nanos),
                enqueued,
                consumes ? dequeued : 0,
                Rates.perSecond(enqueued, nanos),
                consumes ? Rates.perSecond(dequeued, nanos) : Double.NaN,
                backlog,
                consumes ? LatencyStats.of(latencies) : LatencyStats.EMPTY,
                wal,
                reads,
                tables.bytes(),
                tables.deadTuples(),
                jvm,
                pg < 0 ? Double.NaN : Rates.seconds(pg),
                commits,
                load.errors(),
                error == null ? null : describe(error),
                inner);
    }

    /** The message of a failure with its root cause, for reports. */
    static String describe(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String msg = e.getMessage() == null ? e.toString() : e.getMessage();
        return root != e && root.getMessage() != null && !msg.contains(root.getMessage())
                ? msg + ": " + root.getMessage()
                : msg;
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(Math.max(1, d.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("benchmark interrupted", e);
        }
    }

    /** Cumulative figures at one instant; a window is the difference of two. */
    private record Snapshot(
            long nanos,
            long enqueued,
            long dequeued,
            OptionalLong reads,
            Optional<String> walLsn,
            long jvmNanos,
            Map<Integer, Long> serverTicks,
            long commits,
            List<long[]> instances) {}
}

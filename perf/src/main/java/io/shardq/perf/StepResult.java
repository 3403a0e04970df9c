package io.shardq.perf;

/**
 * What one system did at one threads value, over the measured window. Figures that do not apply
 * or could not be measured are {@code NaN} (or -1 for counts), printed as "-" and as JSON null.
 *
 * @param seconds length of the measured window
 * @param backlog messages left in the queue after the workers stopped (the ceiling: every row)
 * @param walBytesPerMessage WAL written by the whole server in the window per message enqueued in
 *     it; for a queue this includes the WAL of its dequeues
 * @param sqlReadsPerMessage statements reading queue rows per message dequeued, if reported
 * @param tableBytes {@code pg_total_relation_size} of the system's tables at the end
 * @param deadTuples {@code n_dead_tup} of the system's tables at the end
 * @param jvmCpuSeconds CPU time of this JVM in the window (every thread, the harness included)
 * @param pgCpuSeconds CPU time of the PostgreSQL processes in the window, if readable
 * @param commits transactions committed in the run's database in the window ({@code
 *     pg_stat_database.xact_commit}), or -1 when not readable
 * @param errors failed send or receive calls in the whole step
 * @param firstError the first failure's message, or null
 * @param inner the system's own timing of its steps over the window (empty if it has none)
 */
record StepResult(
        String system,
        int threads,
        boolean consumes,
        double seconds,
        long enqueued,
        long dequeued,
        double enqueueRate,
        double dequeueRate,
        long backlog,
        LatencyStats latency,
        double walBytesPerMessage,
        double sqlReadsPerMessage,
        long tableBytes,
        long deadTuples,
        double jvmCpuSeconds,
        double pgCpuSeconds,
        long commits,
        long errors,
        String firstError,
        java.util.List<InnerStep> inner) {

    /**
     * The messages the per-message costs divide by: deliveries for a system that consumes,
     * inserts for one that only enqueues (the ceilings).
     */
    long messages() {
        return consumes ? dequeued : enqueued;
    }

    /** Messages per second: deliveries (end to end) for a queue, inserts for a ceiling. */
    double messageRate() {
        return consumes ? dequeueRate : enqueueRate;
    }

    /** Commits in the window per {@linkplain #messages() message}; NaN when unknown. */
    double commitsPerMessage() {
        return commits < 0 ? Double.NaN : Rates.perMessage(commits, messages());
    }

    /** This JVM's CPU microseconds in the window per {@linkplain #messages() message}; NaN when unknown. */
    double jvmCpuMicrosPerMessage() {
        return Rates.perMessage(jvmCpuSeconds * 1e6, messages());
    }

    /** The PostgreSQL processes' CPU microseconds per {@linkplain #messages() message}; NaN when unknown. */
    double pgCpuMicrosPerMessage() {
        return Rates.perMessage(pgCpuSeconds * 1e6, messages());
    }

    /** A step that could not run (its setUp or the server failed): no figures, only the reason. */
    static StepResult failed(String system, int threads, boolean consumes, String reason) {
        double nan = Double.NaN;
        return new StepResult(
                system,
                threads,
                consumes,
                0,
                0,
                0,
                nan,
                nan,
                -1,
                LatencyStats.EMPTY,
                nan,
                nan,
                -1,
                -1,
                nan,
                nan,
                -1,
                1,
                reason,
                java.util.List.of());
    }
}

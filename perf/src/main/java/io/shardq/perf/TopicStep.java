package io.shardq.perf;

import java.util.List;

/**
 * One system at one publisher count in {@code perf topic}: the runner's figures plus what only
 * this scenario reports.
 *
 * @param system the scenario's name of the system: ceiling, queue or topic
 * @param result the runner's figures; for the topic, "enqueued" are publishes and "dequeued"
 *     deliveries (every subscription's)
 * @param publishCommits the producers' batches (sends and commit) in the window; empty for the
 *     ceiling
 * @param storedRows the destination's rows at the end of the window (unknown for the ceiling)
 * @param backlogs per subscription (the queue: one line), at the window's start and end
 * @param totalPublished messages published over the whole step, counted by the topic; -1 otherwise
 * @param totalDelivered deliveries committed over the whole step (after the drain); -1 otherwise
 * @param batch messages per publish commit: a backlog may grow by one per publisher and still keep up
 * @param loadAtEnd the machine's load average right after the window
 */
record TopicStep(
        String system,
        int publishers,
        StepResult result,
        LatencyStats publishCommits,
        StoredRows storedRows,
        List<SubscriptionBacklog> backlogs,
        long totalPublished,
        long totalDelivered,
        int batch,
        String loadAtEnd) {

    TopicStep {
        backlogs = List.copyOf(backlogs);
    }

    /** Subscriptions whose backlog grew by no more than a second of publishing. */
    long keptUp() {
        return backlogs.stream()
                .filter(b -> b.keptUp(result.enqueueRate(), slack()))
                .count();
    }

    /** Growth of a backlog allowed whatever the rate: one publish commit of every publisher. */
    long slack() {
        return (long) batch * publishers;
    }

    /** Every subscription kept up; false when none was measured. */
    boolean allKeptUp() {
        return !backlogs.isEmpty() && keptUp() == backlogs.size();
    }

    long backlogSum(boolean atEnd) {
        long sum = 0;
        for (SubscriptionBacklog b : backlogs) {
            long v = atEnd ? b.atEnd() : b.atStart();
            if (v < 0) {
                return -1;
            }
            sum += v;
        }
        return backlogs.isEmpty() ? -1 : sum;
    }
}

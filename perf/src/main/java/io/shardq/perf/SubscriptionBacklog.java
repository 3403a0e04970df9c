package io.shardq.perf;

/**
 * One subscription's backlog (its lag in {@code shardq.subscriptions}: messages not passed yet)
 * when the measured window started and when it ended; -1 when it could not be read.
 */
record SubscriptionBacklog(String name, long atStart, long atEnd) {

    /**
     * Kept up when its backlog grew by no more than one second of publishing over the window, or by
     * one commit of every publisher ({@code slack}: at a low rate a single commit is a second's
     * worth). A consumer that falls behind grows it by the difference of the rates, every second.
     */
    boolean keptUp(double publishesPerSecond, long slack) {
        if (atStart < 0 || atEnd < 0 || Double.isNaN(publishesPerSecond)) {
            return false;
        }
        return atEnd - atStart <= Math.max(publishesPerSecond, slack);
    }
}

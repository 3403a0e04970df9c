package io.shardq.cli;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Ctrl-C (or SIGTERM) during a batched move: a shutdown hook asks the command to stop at the
 * next batch boundary and holds the JVM until the command has committed its current batch and
 * printed how many messages it moved. A second Ctrl-C cannot speed this up (the JVM is already
 * shutting down), but {@code kill -9} can, and loses nothing either: see {@code queue drain}.
 */
final class GracefulStop implements AutoCloseable {
    /** Longest wait for the current batch; a batch normally takes milliseconds. */
    private static final long WAIT_SECONDS = 60;

    private final CountDownLatch finished = new CountDownLatch(1);
    private final Thread hook;
    private volatile boolean requested;

    private GracefulStop() {
        hook = new Thread(
                () -> {
                    requested = true;
                    try {
                        finished.await(WAIT_SECONDS, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "shardq-cli-stop-1");
    }

    static GracefulStop install() {
        GracefulStop s = new GracefulStop();
        Runtime.getRuntime().addShutdownHook(s.hook);
        return s;
    }

    /** Never asks to stop: for a move the console runs on a request (its own shutdown stops the server). */
    static GracefulStop none() {
        return new GracefulStop();
    }

    /** True once the user asked to stop: finish the current batch, then stop. */
    boolean requested() {
        return requested;
    }

    /** The command is done (its summary printed): lets a pending shutdown proceed. */
    @Override
    public void close() {
        finished.countDown();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running: it returns now that the latch is open
        }
    }
}

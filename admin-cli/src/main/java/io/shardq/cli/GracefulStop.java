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
    /** The handlers {@link #installSignals()} replaced, restored on close; null for a shutdown hook. */
    private java.util.Map<sun.misc.Signal, sun.misc.SignalHandler> replaced;

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

    /**
     * For a command whose stop takes a while and needs the whole JVM (the demo: its consumers
     * finish, its subscribers catch up, then the summary): Ctrl-C and SIGTERM only set the flag,
     * and no shutdown starts. A shutdown hook could not do it: the JVM's other hooks (the
     * connection factory's, the embedded server's) run at the same time and closed the demo's
     * instance under it, and the summary never came. A second Ctrl-C exits at once (130).
     */
    static GracefulStop installSignals() {
        GracefulStop s = new GracefulStop();
        s.replaced = new java.util.LinkedHashMap<>();
        for (String name : new String[] {"INT", "TERM"}) {
            sun.misc.Signal signal = new sun.misc.Signal(name);
            s.replaced.put(signal, sun.misc.Signal.handle(signal, sig -> {
                if (s.requested) {
                    System.exit(130);
                }
                s.requested = true;
            }));
        }
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
        if (replaced != null) {
            replaced.forEach(sun.misc.Signal::handle);
            return;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running: it returns now that the latch is open
        }
    }
}

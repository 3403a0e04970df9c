package io.shardq.jms;

import jakarta.jms.IllegalStateException;

/**
 * The spec's thread rules in one place (Artemis {@code ThreadAwareContext}): a MessageListener
 * must not close or stop its own connection, nor close its own session or consumer.
 */
final class ThreadRules {
    private static final ThreadLocal<ShardQSession> IN_LISTENER = new ThreadLocal<>();

    private ThreadRules() {}

    static void enterListener(ShardQSession session) {
        IN_LISTENER.set(session);
    }

    static void leaveListener() {
        IN_LISTENER.remove();
    }

    static void checkNotInListener(ShardQConnection connection, String what) throws IllegalStateException {
        ShardQSession s = IN_LISTENER.get();
        if (s != null && s.connection() == connection) {
            throw new IllegalStateException("a MessageListener must not " + what);
        }
    }

    static void checkNotInListener(ShardQSession session, String what) throws IllegalStateException {
        if (IN_LISTENER.get() == session) {
            throw new IllegalStateException("a MessageListener must not " + what);
        }
    }

    /** The session whose CompletionListener this thread is calling, if any. */
    private static final ThreadLocal<ShardQSession> IN_COMPLETION = new ThreadLocal<>();

    static void enterCompletion(ShardQSession session) {
        IN_COMPLETION.set(session);
    }

    static void leaveCompletion() {
        IN_COMPLETION.remove();
    }

    /** A CompletionListener must not close its own connection (JMS 3.1, 7.3.8). */
    static void checkNotInCompletion(ShardQConnection connection, String what) throws IllegalStateException {
        ShardQSession s = IN_COMPLETION.get();
        if (s != null && s.connection() == connection) {
            throw new IllegalStateException("a CompletionListener must not " + what);
        }
    }

    /** A CompletionListener must not close its own session or producer, nor commit or roll back its session. */
    static void checkNotInCompletion(ShardQSession session, String what) throws IllegalStateException {
        if (IN_COMPLETION.get() == session) {
            throw new IllegalStateException("a CompletionListener must not " + what);
        }
    }

    static boolean inListenerOf(ShardQSession session) {
        return IN_LISTENER.get() == session;
    }
}

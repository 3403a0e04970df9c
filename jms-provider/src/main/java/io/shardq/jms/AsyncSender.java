package io.shardq.jms;

import io.shardq.broker.message.BrokerMessage;
import jakarta.jms.CompletionListener;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import java.util.AbstractMap;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A session's asynchronous sends ({@code send(..., CompletionListener)}): the send returns once
 * the message is checked, converted and queued here; one worker thread per session writes what is
 * queued, up to {@link #MAX_BATCH} messages at a time as one unit ({@link
 * io.shardq.broker.shard.BrokerSession#sendAll}: outside a transaction, one commit), and then calls
 * the listeners in send order, on itself (never the application's thread). While it writes one
 * batch the application queues the next, so a producer keeps sending while PostgreSQL commits.
 *
 * <p>At most {@link #MAX_QUEUED} sends wait in the queue; a send beyond that waits for room, so an
 * asynchronous producer faster than PostgreSQL is paced rather than filling the heap.
 *
 * <p>Every other use of the session first waits until the queue is written and its listeners
 * called ({@link #awaitIdle}), so a synchronous send or a commit comes after the asynchronous sends
 * made before it, and the engine session is used by one thread at a time. A listener that sends
 * again does not wait for itself.
 */
final class AsyncSender {
    private static final Logger LOG = LoggerFactory.getLogger(AsyncSender.class);
    /** Messages written as one unit at most. */
    static final int MAX_BATCH = 500;
    /**
     * Messages queued at most: a send beyond it waits until the worker has taken a unit (a producer
     * faster than PostgreSQL is held back instead of filling the heap).
     */
    static final int MAX_QUEUED = 10_000;

    record Item(String destination, BrokerMessage stored, Message message, CompletionListener listener) {}

    private final ShardQSession session;
    private final ArrayDeque<Item> queue = new ArrayDeque<>();
    private boolean busy;
    private boolean stopped;
    private Thread worker;

    AsyncSender(ShardQSession session) {
        this.session = session;
    }

    synchronized void submit(Item item) throws JMSException {
        if (stopped) {
            throw Exceptions.closed("session");
        }
        waitWhile(() -> queue.size() >= MAX_QUEUED && !isWorker() && !stopped);
        queue.add(item);
        if (worker == null) {
            worker = new Thread(this::loop, "shardq-completion-" + System.identityHashCode(session));
            worker.setDaemon(true);
            worker.start();
        }
        notifyAll();
    }

    boolean isWorker() {
        return Thread.currentThread() == worker;
    }

    /** Waits until every queued send is written and its listener called (not on the worker). */
    void awaitIdle() {
        if (isWorker()) {
            return;
        }
        synchronized (this) {
            waitWhile(() -> !queue.isEmpty() || busy);
        }
    }

    /**
     * Holding this monitor: waits until {@code condition} is false, woken by {@code notifyAll}. An
     * interrupt does not end the wait (what is queued must be written and completed) and is kept.
     */
    private void waitWhile(java.util.function.BooleanSupplier condition) {
        boolean interrupted = false;
        while (condition.getAsBoolean()) {
            try {
                wait();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Writes and completes what is queued, then ends the worker. */
    void stop() {
        awaitIdle();
        synchronized (this) {
            stopped = true;
            notifyAll();
        }
    }

    private void loop() {
        while (true) {
            List<Item> batch = new ArrayList<>();
            synchronized (this) {
                while (queue.isEmpty() && !stopped) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        // a daemon worker: only stop() ends it
                    }
                }
                if (queue.isEmpty()) {
                    return;
                }
                while (!queue.isEmpty() && batch.size() < MAX_BATCH) {
                    batch.add(queue.poll());
                }
                busy = true;
                notifyAll(); // room for senders waiting at MAX_QUEUED
            }
            try {
                JMSException failure = write(batch);
                ThreadRules.enterCompletion(session);
                try {
                    for (Item i : batch) {
                        complete(i, failure);
                    }
                } finally {
                    ThreadRules.leaveCompletion();
                }
            } finally {
                synchronized (this) {
                    busy = false;
                    notifyAll();
                }
            }
        }
    }

    private JMSException write(List<Item> batch) {
        List<Map.Entry<String, BrokerMessage>> sends = new ArrayList<>(batch.size());
        for (Item i : batch) {
            sends.add(new AbstractMap.SimpleImmutableEntry<>(i.destination(), i.stored()));
        }
        try {
            session.call(s -> {
                s.sendAll(sends);
                return null;
            });
            return null;
        } catch (JMSException e) {
            return e;
        } catch (RuntimeException e) {
            return Exceptions.translate(e);
        }
    }

    private static void complete(Item i, JMSException failure) {
        try {
            if (failure == null) {
                i.listener().onCompletion(i.message());
            } else {
                i.listener().onException(i.message(), failure);
            }
        } catch (RuntimeException | Error e) {
            LOG.warn("a CompletionListener threw (ignored): {}", e.toString());
        }
    }
}

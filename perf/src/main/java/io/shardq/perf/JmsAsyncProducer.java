package io.shardq.perf;

import jakarta.jms.BytesMessage;
import jakarta.jms.CompletionListener;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Destination;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A producer thread's JMS side in asynchronous mode ({@code perf queue --async}): a
 * non-transacted session sends every message with {@code send(message, CompletionListener)} and
 * goes on without waiting, so the provider writes one unit while the thread queues the next.
 * At most {@code inFlight} messages of this producer await their completion (a semaphore taken
 * before each send, given back by its completion), so the thread keeps a bounded number of
 * batches in flight instead of filling the provider's queue.
 *
 * <p>{@link #sendBatch} returns once the batch's sends are accepted. A batch's publish time
 * ({@link PublishMeter}) runs from its first send to the completion of its last message. A failed
 * completion is thrown by the next {@code sendBatch}, so the harness counts it as an error.
 */
final class JmsAsyncProducer implements QueueSystem.Producer {
    private final Session session;
    private final MessageProducer producer;
    private final Semaphore inFlight;
    private final PublishMeter publishes;
    private final AtomicReference<Exception> failure = new AtomicReference<>();

    /** {@code session} must not be transacted (a transacted session's sends complete at once); it is closed here. */
    JmsAsyncProducer(Session session, Destination destination, Settings settings, int inFlight, PublishMeter publishes)
            throws JMSException {
        if (session.getTransacted()) {
            throw new IllegalArgumentException("an asynchronous producer needs a non-transacted session");
        }
        if (inFlight < 1) {
            throw new IllegalArgumentException("in flight " + inFlight + " is invalid: expected at least 1 message");
        }
        this.session = session;
        this.producer = session.createProducer(destination);
        producer.setDeliveryMode(settings.persistent() ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT);
        producer.setDisableMessageTimestamp(true);
        this.inFlight = new Semaphore(inFlight);
        this.publishes = publishes;
    }

    @Override
    public void sendBatch(List<byte[]> payloads) throws Exception {
        Exception failed = failure.getAndSet(null);
        if (failed != null) {
            throw failed;
        }
        Batch batch = new Batch(System.nanoTime(), payloads.size());
        for (byte[] p : payloads) {
            inFlight.acquire();
            BytesMessage m = session.createBytesMessage();
            m.writeBytes(p);
            try {
                producer.send(m, batch);
            } catch (JMSException | RuntimeException e) {
                inFlight.release();
                throw e;
            }
        }
    }

    /** Closing the session waits for the outstanding completions (JMS 3.1, 7.3.8). */
    @Override
    public void close() throws Exception {
        session.close();
    }

    /** The completions of one batch, called on the provider's thread in send order. */
    private final class Batch implements CompletionListener {
        private final long startNanos;
        private final AtomicInteger left;

        Batch(long startNanos, int size) {
            this.startNanos = startNanos;
            this.left = new AtomicInteger(size);
        }

        @Override
        public void onCompletion(Message message) {
            inFlight.release();
            if (left.decrementAndGet() == 0) {
                publishes.record(startNanos);
            }
        }

        @Override
        public void onException(Message message, Exception exception) {
            inFlight.release();
            left.decrementAndGet();
            failure.compareAndSet(null, exception);
        }
    }
}

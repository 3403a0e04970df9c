package io.shardq.perf;

import jakarta.jms.BytesMessage;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Destination;
import jakarta.jms.JMSException;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * A producer thread's JMS side, for the queue and the topic alike: one transacted session sends
 * each batch as bytes messages and commits it, the commit is timed ({@link PublishMeter}), the
 * messages counted, and the thread paced ({@link Pacer}) after the commit, so the wait is never
 * part of the latency.
 */
final class JmsBatchProducer implements QueueSystem.Producer {
    private final Session session;
    private final MessageProducer producer;
    private final PublishMeter publishes;
    private final LongAdder published;
    private final Pacer pacer;

    /** {@code session} must be transacted; it is closed with this producer. */
    JmsBatchProducer(
            Session session,
            Destination destination,
            Settings settings,
            double ratePerSecond,
            PublishMeter publishes,
            LongAdder published)
            throws JMSException {
        this.session = session;
        this.producer = session.createProducer(destination);
        producer.setDeliveryMode(settings.persistent() ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT);
        producer.setDisableMessageTimestamp(true);
        this.publishes = publishes;
        this.published = published;
        this.pacer = Pacer.forShare(ratePerSecond, settings.threads(), settings.batchSize());
    }

    @Override
    public void sendBatch(List<byte[]> payloads) throws Exception {
        long start = System.nanoTime();
        for (byte[] p : payloads) {
            BytesMessage m = session.createBytesMessage();
            m.writeBytes(p);
            producer.send(m);
        }
        session.commit();
        publishes.record(start);
        published.add(payloads.size());
        pacer.awaitNext();
    }

    @Override
    public void close() throws Exception {
        session.close();
    }
}

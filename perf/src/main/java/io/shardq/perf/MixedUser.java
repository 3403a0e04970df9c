package io.shardq.perf;

import io.shardq.jms.ShardQSession;
import io.shardq.perf.Workload.Step;
import io.shardq.perf.Workload.Template;
import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import jakarta.jms.Session;
import java.util.Enumeration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * One concurrent user of the {@code mixed} scenario: one transacted JMS session with a producer
 * and a consumer on the benchmark's queue, used by one thread only. It picks a template by
 * weight, runs its steps, commits, and starts over at once (no think time) until told to stop.
 *
 * <p>The application SQL steps run on {@link ShardQSession#getConnection()}, the JDBC
 * connection of the session's current transaction, so the session's commit makes the UPDATE or
 * INSERT and the messages durable together. A failed transaction is rolled back, counted and
 * retried after 50 ms, so a bad moment does not end the run but a broken setup shows as failures.
 */
final class MixedUser implements Runnable, AutoCloseable {
    private static final long ERROR_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final int userNo;
    private final Workload workload;
    private final List<TemplateMeter> meters;
    private final WeightedChoice choice;
    private final AtomicBoolean running;
    private final Random random;
    private final byte[] body;
    private final ShardQSession session;
    private final Queue queue;
    private final MessageProducer producer;
    private final MessageConsumer consumer;
    private final byte[] readBuffer;

    /** Opens the user's session on the caller's thread; {@link #run()} then uses it on its own. */
    MixedUser(
            int userNo,
            Connection connection,
            String queueName,
            Workload workload,
            List<TemplateMeter> meters,
            WeightedChoice choice,
            AtomicBoolean running)
            throws Exception {
        this.userNo = userNo;
        this.workload = workload;
        this.meters = meters;
        this.choice = choice;
        this.running = running;
        this.random = new Random(userNo); // a user repeats its sequence of choices from run to run
        this.body = Payloads.filler(workload.payloadBytes(), userNo);
        this.readBuffer = new byte[workload.payloadBytes()];
        this.session = (ShardQSession) connection.createSession(true, Session.SESSION_TRANSACTED);
        this.queue = session.createQueue(queueName);
        this.producer = session.createProducer(queue);
        producer.setDeliveryMode(DeliveryMode.PERSISTENT);
        this.consumer = session.createConsumer(queue);
    }

    @Override
    public void run() {
        while (running.get() && !Thread.currentThread().isInterrupted()) {
            TemplateMeter meter = meters.get(choice.pick(random));
            long start = System.nanoTime();
            try {
                Moved moved = runSteps(meter.template());
                session.commit();
                meter.committed((System.nanoTime() - start) / 1000, moved.sent, moved.received, moved.browsed);
            } catch (Exception e) {
                rollbackQuietly();
                if (!running.get()) {
                    return; // stopping: the failure may be the shutdown itself
                }
                meter.failed(e);
                LockSupport.parkNanos(ERROR_PAUSE_NANOS);
            }
        }
    }

    /** Messages a transaction moved, counted once it committed. */
    private static final class Moved {
        int sent;
        int received;
        int browsed;
    }

    private Moved runSteps(Template t) throws Exception {
        Moved m = new Moved();
        for (Step s : t.steps()) {
            switch (s.kind()) {
                case SEND -> {
                    for (int i = 0; i < s.count(); i++) {
                        BytesMessage msg = session.createBytesMessage();
                        msg.writeBytes(body);
                        producer.send(msg);
                    }
                    m.sent += s.count();
                }
                case RECEIVE -> m.received += receive(s.count());
                case BROWSE -> m.browsed += browse(s.count());
                case UPDATE_ACCOUNT -> {
                    int id = 1 + random.nextInt(workload.accounts());
                    if (ApplicationTables.updateAccount(session.getConnection(), id, 1 + random.nextInt(100)) != 1) {
                        throw new IllegalStateException(
                                "account " + id + " is missing from " + ApplicationTables.ACCOUNTS);
                    }
                }
                case INSERT_AUDIT ->
                    ApplicationTables.insertAudit(session.getConnection(), t.name(), userNo, m.sent + m.received);
            }
        }
        return m;
    }

    /** Up to {@code max} messages: waits for the first, then takes only what is there. */
    private int receive(int max) throws Exception {
        int wait = workload.receiveWaitMillis();
        Message msg = wait > 0 ? consumer.receive(wait) : consumer.receiveNoWait();
        int n = 0;
        while (msg != null) {
            ((BytesMessage) msg).readBytes(readBuffer); // the application reads what it receives
            n++;
            msg = n < max ? consumer.receiveNoWait() : null;
        }
        return n;
    }

    private int browse(int max) throws Exception {
        QueueBrowser browser = session.createBrowser(queue);
        try {
            Enumeration<?> e = browser.getEnumeration();
            int n = 0;
            while (n < max && e.hasMoreElements()) {
                e.nextElement();
                n++;
            }
            return n;
        } finally {
            browser.close();
        }
    }

    private void rollbackQuietly() {
        try {
            session.rollback();
        } catch (Exception ignored) {
            // the session or its connection is broken; the next transaction reports it
        }
    }

    /** Closes the session (rolling back anything uncommitted); called after the thread ended. */
    @Override
    public void close() throws Exception {
        session.close();
    }
}

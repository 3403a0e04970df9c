package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.testing.PgTest;
import jakarta.jms.CompletionListener;
import jakarta.jms.IllegalStateException;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Asynchronous send ({@code send(..., CompletionListener)}): every completion arrives once, in
 * send order, on a thread that is not the sender's; bad arguments are thrown by the send itself;
 * a listener may not close or commit its own session, producer or connection; {@code close()}
 * waits for outstanding completions; sends the database refuses reach their listeners as
 * exceptions and are not in the queue.
 */
@PgTest
class AsyncSendTest extends JmsConnectionFixture {
    /** Records completions and failures in the order the listener is called. */
    static final class Recorder implements CompletionListener {
        final List<String> completed = Collections.synchronizedList(new ArrayList<>());
        final List<String> failed = Collections.synchronizedList(new ArrayList<>());
        final List<Exception> errors = Collections.synchronizedList(new ArrayList<>());
        final Set<Thread> threads = Collections.synchronizedSet(new HashSet<>());

        @Override
        public void onCompletion(Message message) {
            threads.add(Thread.currentThread());
            completed.add(text(message));
        }

        @Override
        public void onException(Message message, Exception exception) {
            threads.add(Thread.currentThread());
            failed.add(text(message));
            errors.add(exception);
        }

        static String text(Message m) {
            try {
                return ((TextMessage) m).getText();
            } catch (JMSException e) {
                throw new AssertionError(e);
            }
        }
    }

    @Test
    void hundredThousand_completeOnceEach_inSendOrder_offTheSendersThread_andAreAllQueued() throws Exception {
        int n = 100_000;
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = s.createQueue("async.many");
        MessageProducer p = s.createProducer(q);
        Recorder r = new Recorder();
        long started = System.nanoTime();
        for (int i = 0; i < n; i++) {
            p.send(s.createTextMessage(Integer.toString(i)), r);
        }
        long queuedMs = (System.nanoTime() - started) / 1_000_000;
        s.close(); // waits for the outstanding completions
        long doneMs = (System.nanoTime() - started) / 1_000_000;
        assertThat(r.failed).isEmpty();
        assertThat(r.completed).hasSize(n);
        for (int i = 0; i < n; i++) {
            assertThat(r.completed.get(i)).as("completion %d", i).isEqualTo(Integer.toString(i));
        }
        assertThat(r.threads).doesNotContain(Thread.currentThread());
        assertThat(factory.broker().admin().queues().backlog("async.many")).isEqualTo(n);
        System.out.printf("async send: %d messages queued in %d ms, all completed after %d ms%n", n, queuedMs, doneMs);
    }

    @Test
    void badArguments_areThrownByTheSendItself_andNoListenerIsCalled() throws Exception {
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = s.createQueue("async.bad");
        MessageProducer fixed = s.createProducer(q);
        MessageProducer anonymous = s.createProducer(null);
        Recorder r = new Recorder();
        TextMessage m = s.createTextMessage("x");
        assertThatThrownBy(() -> fixed.send(m, 3, 4, 0, r))
                .isInstanceOf(JMSException.class)
                .hasMessageContaining("delivery mode 3 is invalid");
        assertThatThrownBy(() -> fixed.send(m, 2, 10, 0, r))
                .isInstanceOf(JMSException.class)
                .hasMessageContaining("priority 10 is invalid");
        assertThatThrownBy(() -> anonymous.send(null, m, r)).isInstanceOf(InvalidDestinationException.class);
        assertThatThrownBy(() -> fixed.send(m, (CompletionListener) null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> fixed.send((Message) null, r)).isInstanceOf(jakarta.jms.MessageFormatException.class);
        fixed.close();
        assertThat(r.completed).isEmpty();
        assertThat(r.failed).isEmpty();
        assertThat(factory.broker().admin().queues().backlog("async.bad")).isZero();
    }

    @Test
    void aListener_mayNotCloseOrCommitItsOwnSessionProducerOrConnection_andCloseWaitsForIt() throws Exception {
        Session s = connection.createSession(true, Session.SESSION_TRANSACTED);
        Queue q = s.createQueue("async.rules");
        MessageProducer p = s.createProducer(q);
        List<Exception> refused = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger completions = new AtomicInteger();
        CompletionListener rude = new CompletionListener() {
            @Override
            public void onCompletion(Message message) {
                for (Attempt a : List.<Attempt>of(s::close, s::commit, s::rollback, p::close, connection::close)) {
                    try {
                        a.run();
                    } catch (Exception e) {
                        refused.add(e);
                    }
                }
                completions.incrementAndGet();
            }

            @Override
            public void onException(Message message, Exception exception) {}
        };
        for (int i = 0; i < 20; i++) {
            p.send(s.createTextMessage("m" + i), rude);
        }
        p.close(); // returns after every completion was called
        assertThat(completions.get()).isEqualTo(20);
        assertThat(refused).hasSize(100).allSatisfy(e -> assertThat(e).isInstanceOf(IllegalStateException.class));
        s.commit();
        assertThat(factory.broker().admin().queues().backlog("async.rules")).isEqualTo(20);
    }

    interface Attempt {
        void run() throws Exception;
    }

    @Test
    void sendsTheDatabaseRefuses_reachTheirListenersAsExceptions_andAreNotInTheQueue() throws Exception {
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = s.createQueue("async.refused");
        MessageProducer p = s.createProducer(q);
        Recorder r = new Recorder();
        for (int i = 0; i < 1_000; i++) {
            p.send(s.createTextMessage("ok" + i), r);
        }
        p.close();
        factory.broker().admin().queues().stop("async.refused", true, false); // enqueue stopped from now on
        MessageProducer p2 = s.createProducer(q);
        for (int i = 0; i < 1_000; i++) {
            p2.send(s.createTextMessage("refused" + i), r);
        }
        p2.close();
        assertThat(r.completed).hasSize(1_000).allSatisfy(t -> assertThat(t).startsWith("ok"));
        assertThat(r.failed).hasSize(1_000).allSatisfy(t -> assertThat(t).startsWith("refused"));
        assertThat(r.errors).allSatisfy(e -> assertThat(e).hasMessageContaining("enqueue is stopped"));
        MessageConsumer c = s.createConsumer(q);
        Set<String> queued = new HashSet<>();
        while (queued.size() < 1_000) {
            Message m = c.receive(30_000);
            assertThat(m).as("after %d", queued.size()).isNotNull();
            assertThat(queued.add(((TextMessage) m).getText())).isTrue();
        }
        assertThat(c.receive(200)).isNull();
        assertThat(queued).containsExactlyInAnyOrderElementsOf(r.completed);
    }
}

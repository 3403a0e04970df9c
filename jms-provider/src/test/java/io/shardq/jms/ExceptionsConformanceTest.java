package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.BrokerProperty;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.IllegalStateException;
import jakarta.jms.IllegalStateRuntimeException;
import jakarta.jms.InvalidClientIDException;
import jakarta.jms.InvalidClientIDRuntimeException;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.InvalidDestinationRuntimeException;
import jakarta.jms.InvalidSelectorException;
import jakarta.jms.InvalidSelectorRuntimeException;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.JMSSecurityException;
import jakarta.jms.JMSSecurityRuntimeException;
import jakarta.jms.Message;
import jakarta.jms.MessageEOFException;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageFormatRuntimeException;
import jakarta.jms.MessageNotReadableException;
import jakarta.jms.MessageNotWriteableException;
import jakarta.jms.MessageNotWriteableRuntimeException;
import jakarta.jms.Queue;
import jakarta.jms.ResourceAllocationException;
import jakarta.jms.ResourceAllocationRuntimeException;
import jakarta.jms.Session;
import jakarta.jms.TransactionInProgressException;
import jakarta.jms.TransactionInProgressRuntimeException;
import jakarta.jms.TransactionRolledBackException;
import jakarta.jms.TransactionRolledBackRuntimeException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * JMS 3.1, chapter "JMS exceptions": the simplified API throws the unchecked twin of each
 * checked exception (section "Standard unchecked exceptions"), MessageNotWriteableRuntimeException and
 * ResourceAllocationRuntimeException included, each with its checked cause and error code; error
 * texts cut a destination name as they cut a selector.
 */
@PgTest
class ExceptionsConformanceTest {

    /** The checked exceptions of JMS 3.1 and the unchecked type the simplified API throws for each. */
    static Map<JMSException, Class<? extends JMSRuntimeException>> table() {
        Map<JMSException, Class<? extends JMSRuntimeException>> t = new LinkedHashMap<>();
        t.put(new IllegalStateException("m", "C"), IllegalStateRuntimeException.class);
        t.put(new InvalidClientIDException("m", "C"), InvalidClientIDRuntimeException.class);
        t.put(new InvalidDestinationException("m", "C"), InvalidDestinationRuntimeException.class);
        t.put(new InvalidSelectorException("m", "C"), InvalidSelectorRuntimeException.class);
        t.put(new JMSSecurityException("m", "C"), JMSSecurityRuntimeException.class);
        t.put(new MessageFormatException("m", "C"), MessageFormatRuntimeException.class);
        t.put(new MessageNotWriteableException("m", "C"), MessageNotWriteableRuntimeException.class);
        t.put(new ResourceAllocationException("m", "C"), ResourceAllocationRuntimeException.class);
        t.put(new TransactionInProgressException("m", "C"), TransactionInProgressRuntimeException.class);
        t.put(new TransactionRolledBackException("m", "C"), TransactionRolledBackRuntimeException.class);
        // no unchecked twin in JMS 3.1: the base type
        t.put(new MessageEOFException("m", "C"), JMSRuntimeException.class);
        t.put(new MessageNotReadableException("m", "C"), JMSRuntimeException.class);
        t.put(new JMSException("m", "C"), JMSRuntimeException.class);
        return t;
    }

    @Test
    void everyCheckedException_mapsToItsUncheckedTwin_keepingMessageCodeAndCause() {
        table().forEach((checked, expected) -> {
            JMSRuntimeException r = Exceptions.unchecked(checked);
            assertThat(r.getClass()).as(checked.getClass().getSimpleName()).isEqualTo(expected);
            assertThat(r.getMessage()).isEqualTo("m");
            assertThat(r.getErrorCode()).isEqualTo("C");
            assertThat(r.getCause()).isSameAs(checked);
        });
    }

    @Test
    void theSimplifiedApi_throwsMessageNotWriteableRuntimeException_forAReadOnlyReceivedMessage(TestDatabase db) {
        try (ShardQConnectionFactory f =
                        new ShardQConnectionFactory(db.brokerConfig().build());
                JMSContext ctx = f.createContext()) {
            Queue q = ctx.createQueue("conf.exceptions.ro");
            JMSConsumer consumer = ctx.createConsumer(q);
            ctx.createProducer().send(q, "body");
            Message received = consumer.receive(30_000);
            assertThat(received).isNotNull();
            // the producer's properties go onto the message, whose properties are read-only
            assertThatThrownBy(() -> ctx.createProducer().setProperty("k", 1).send(q, received))
                    .isInstanceOf(MessageNotWriteableRuntimeException.class)
                    .hasCauseInstanceOf(MessageNotWriteableException.class);
        }
    }

    @Test
    void theSimplifiedApi_throwsResourceAllocationRuntimeException_pastTheNonPersistentBound(TestDatabase db) {
        try (ShardQConnectionFactory f = new ShardQConnectionFactory(db.brokerConfig()
                        .set(BrokerProperty.NON_PERSISTENT_MAX_BYTES, 2048)
                        .build());
                JMSContext ctx = f.createContext()) {
            Queue q = ctx.createQueue("conf.exceptions.bound");
            var producer = ctx.createProducer().setDeliveryMode(DeliveryMode.NON_PERSISTENT);
            assertThatThrownBy(() -> {
                        for (int i = 0; i < 10_000; i++) {
                            producer.send(q, "x".repeat(200));
                        }
                    })
                    .isInstanceOf(ResourceAllocationRuntimeException.class)
                    .hasMessageContaining("shardq.non-persistent.max-bytes = 2048");
        }
    }

    @Test
    void aVeryLongDestinationName_isCutInTheErrorText_classicAndSimplified(TestDatabase db) throws Exception {
        String name = "q".repeat(10_240);
        try (ShardQConnectionFactory f =
                        new ShardQConnectionFactory(db.brokerConfig().build());
                Connection c = f.createConnection();
                JMSContext ctx = f.createContext()) {
            Session s = c.createSession();
            for (Throwable t : new Throwable[] {
                catchThrown(() -> s.createQueue(name)),
                catchThrown(() -> s.createTopic(name)),
                catchThrown(() -> s.createProducer(new ForeignQueue(name))),
                catchThrown(() -> ctx.createQueue(name)),
                catchThrown(() -> ctx.createProducer().send(new ForeignQueue(name), "x"))
            }) {
                assertThat(t)
                        .isInstanceOfAny(InvalidDestinationException.class, InvalidDestinationRuntimeException.class);
                assertThat(t.getMessage())
                        .hasSizeLessThan(400)
                        .contains("(10240 characters)")
                        .contains("expected 1 to 64 characters");
            }
        }
    }

    interface Call {
        void run() throws Exception;
    }

    private static Throwable catchThrown(Call call) {
        try {
            call.run();
        } catch (Throwable t) {
            return t;
        }
        throw new AssertionError("nothing thrown");
    }

    /** Another provider's queue, as an application may pass one. */
    record ForeignQueue(String name) implements Queue {
        @Override
        public String getQueueName() {
            return name;
        }
    }
}

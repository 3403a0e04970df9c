package io.shardq.broker.selector;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.message.BrokerMessage;
import org.apache.activemq.artemis.api.core.SimpleString;
import org.apache.activemq.artemis.selector.filter.BooleanExpression;
import org.apache.activemq.artemis.selector.filter.FilterException;
import org.apache.activemq.artemis.selector.filter.Filterable;
import org.apache.activemq.artemis.selector.impl.SelectorParser;

/**
 * A compiled JMS message selector (SQL-92 subset of the JMS spec), evaluated against a {@link
 * BrokerMessage}. Parsing and evaluation are ActiveMQ Artemis's selector library: a well-kept,
 * spec-conformant implementation rather than a hand-written parser.
 *
 * <p>Header fields a selector may name: JMSDeliveryMode ('PERSISTENT'/'NON_PERSISTENT'),
 * JMSPriority, JMSMessageID, JMSTimestamp, JMSCorrelationID, JMSType; anything else is a
 * property.
 */
public final class Selector {
    private final String text;
    private final BooleanExpression expression;

    private Selector(String text, BooleanExpression expression) {
        this.text = text;
        this.expression = expression;
    }

    /** Compiles a selector; null or blank means "every message" and returns null. */
    public static Selector compile(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        try {
            return new Selector(text, SelectorParser.parse(text));
        } catch (FilterException | RuntimeException e) {
            throw new ShardQException(
                    ErrorKind.INVALID_SELECTOR, "selector \"" + text + "\" is invalid: " + e.getMessage(), e);
        }
    }

    public String text() {
        return text;
    }

    public boolean matches(BrokerMessage m) {
        try {
            return expression.matches(new View(m));
        } catch (FilterException e) {
            return false; // JMS: a selector that cannot be evaluated for a message does not match it
        }
    }

    private record View(BrokerMessage m) implements Filterable {
        @Override
        public <T> T getBodyAs(Class<T> type) {
            return null;
        }

        @Override
        public Object getProperty(SimpleString name) {
            Object v =
                    switch (name.toString()) {
                        case "JMSDeliveryMode" -> m.persistent() ? "PERSISTENT" : "NON_PERSISTENT";
                        case "JMSPriority" -> m.priority();
                        case "JMSMessageID" -> m.messageId();
                        case "JMSTimestamp" -> m.timestamp();
                        case "JMSCorrelationID" -> m.correlationId();
                        case "JMSType" -> m.type();
                        default -> m.properties().get(name.toString());
                    };
            return v;
        }

        @Override
        public Object getLocalConnectionId() {
            return null;
        }
    }
}

package io.shardq.jms;

import static io.shardq.jms.ShardQJMSContext.unchecked;

import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.Message;
import jakarta.jms.MessageFormatRuntimeException;
import jakarta.jms.MessageListener;

/** The simplified API's consumer: a {@link ShardQMessageConsumer} with unchecked exceptions. */
final class ShardQJMSConsumer implements JMSConsumer {
    private final ShardQMessageConsumer consumer;

    ShardQJMSConsumer(ShardQMessageConsumer consumer) {
        this.consumer = consumer;
    }

    @Override
    public String getMessageSelector() {
        return unchecked(consumer::getMessageSelector);
    }

    @Override
    public MessageListener getMessageListener() throws JMSRuntimeException {
        return unchecked(consumer::getMessageListener);
    }

    @Override
    public void setMessageListener(MessageListener listener) throws JMSRuntimeException {
        unchecked(() -> {
            consumer.setMessageListener(listener);
            return null;
        });
    }

    @Override
    public Message receive() {
        return unchecked(consumer::receive);
    }

    @Override
    public Message receive(long timeout) {
        return unchecked(() -> consumer.receive(timeout));
    }

    @Override
    public Message receiveNoWait() {
        return unchecked(consumer::receiveNoWait);
    }

    @Override
    public void close() {
        unchecked(() -> {
            consumer.close();
            return null;
        });
    }

    @Override
    public <T> T receiveBody(Class<T> c) {
        return receiveBody(c, 0);
    }

    @Override
    public <T> T receiveBody(Class<T> c, long timeout) {
        return unchecked(() -> body(consumer.receiveUnacknowledged(timeout), c));
    }

    @Override
    public <T> T receiveBodyNoWait(Class<T> c) {
        return unchecked(() -> body(consumer.receiveUnacknowledged(-1), c));
    }

    /**
     * The body of {@code m} (received unacknowledged) as {@code c}. In an AUTO_ACKNOWLEDGE or
     * DUPS_OK session it is acknowledged once read; a body that cannot be read as {@code c} is not
     * acknowledged but recovered, so the message is delivered again (JMS 3.1, {@code receiveBody}).
     * In other sessions the message counts as received either way, as after {@code receive}.
     */
    private <T> T body(Message m, Class<T> c) throws JMSException {
        if (m == null) {
            return null;
        }
        ShardQSession session = consumer.session();
        boolean autoAck = session.acknowledgesAutomatically();
        T body;
        try {
            if (!m.isBodyAssignableTo(c)) {
                throw new MessageFormatRuntimeException("the message body cannot be read as " + c.getName() + " ("
                        + m.getClass().getSimpleName() + "); it was not acknowledged and will be delivered again");
            }
            body = m.getBody(c);
        } catch (JMSException | RuntimeException e) {
            if (autoAck) {
                session.recoverDelivered();
            }
            throw e;
        }
        if (autoAck) {
            session.acknowledge();
        }
        return body;
    }
}

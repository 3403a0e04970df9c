package io.shardq.jms;

import static io.shardq.jms.ShardQJMSContext.unchecked;

import jakarta.jms.JMSConsumer;
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
        return body(receive(), c);
    }

    @Override
    public <T> T receiveBody(Class<T> c, long timeout) {
        return body(receive(timeout), c);
    }

    @Override
    public <T> T receiveBodyNoWait(Class<T> c) {
        return body(receiveNoWait(), c);
    }

    private static <T> T body(Message m, Class<T> c) {
        if (m == null) {
            return null;
        }
        return unchecked(() -> {
            if (!m.isBodyAssignableTo(c)) {
                throw new MessageFormatRuntimeException("the message body cannot be read as " + c.getName() + " ("
                        + m.getClass().getSimpleName() + ")");
            }
            return m.getBody(c);
        });
    }
}

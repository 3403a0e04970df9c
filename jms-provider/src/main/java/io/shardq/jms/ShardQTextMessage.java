package io.shardq.jms;

import io.shardq.broker.message.BrokerMessage;
import jakarta.jms.JMSException;
import jakarta.jms.TextMessage;

/** A message whose body is a String, or null. */
public class ShardQTextMessage extends ShardQMessage implements TextMessage {
    private String text;

    ShardQTextMessage() {}

    ShardQTextMessage(String text) {
        this.text = text;
    }

    @Override
    public void setText(String text) throws JMSException {
        checkBodyWritable();
        this.text = text;
    }

    @Override
    public String getText() {
        return text;
    }

    /** The text, or null when there is none; {@code c} must be String or a supertype. */
    @Override
    public <T> T getBody(Class<T> c) throws JMSException {
        if (text == null) {
            return null;
        }
        if (!isBodyAssignableTo(c)) {
            throw notAssignable("java.lang.String", c);
        }
        return c.cast(text);
    }

    @Override
    @SuppressWarnings("rawtypes")
    public boolean isBodyAssignableTo(Class c) {
        return text == null || (c != null && c.isAssignableFrom(String.class));
    }

    @Override
    void doClearBody() {
        text = null;
    }

    @Override
    BrokerMessage.BodyType bodyType() {
        return BrokerMessage.BodyType.TEXT;
    }
}

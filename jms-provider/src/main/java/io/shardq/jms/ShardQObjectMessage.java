package io.shardq.jms;

import io.shardq.broker.message.BrokerMessage;
import jakarta.jms.JMSException;
import jakarta.jms.MessageFormatException;
import jakarta.jms.ObjectMessage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.Serializable;

/**
 * A message whose body is a Serializable object. {@link #setObject} serialises at once (the body is
 * a snapshot); {@link #getObject} deserialises a new copy each call, accepting only the classes of
 * the {@link ObjectMessageAllowList} the session configured ({@link
 * ObjectMessageAllowList#defaults()} otherwise).
 */
public class ShardQObjectMessage extends ShardQMessage implements ObjectMessage {
    /** The serialised object; null when there is none. */
    private byte[] serialized;

    private ObjectMessageAllowList allowList = ObjectMessageAllowList.defaults();

    ShardQObjectMessage() {}

    /**
     * Serialises the object now: later changes to it do not change the message.
     *
     * @throws MessageFormatException when serialisation fails (e.g. a field is not Serializable)
     */
    @Override
    public void setObject(Serializable object) throws JMSException {
        checkBodyWritable();
        serialized = object == null ? null : serialize(object);
    }

    /**
     * A new copy of the object, or null.
     *
     * @throws MessageFormatException when the body holds a class the allow-list refuses (the message
     *     names it and says how to allow it), or cannot be deserialised
     */
    @Override
    public Serializable getObject() throws JMSException {
        return serialized == null ? null : (Serializable) allowList.deserialize(serialized);
    }

    @Override
    public <T> T getBody(Class<T> c) throws JMSException {
        Serializable object = getObject();
        if (object == null) {
            return null;
        }
        if (c == null || !c.isInstance(object)) {
            throw notAssignable(object.getClass().getName(), c);
        }
        return c.cast(object);
    }

    /** False also when the body cannot be deserialised or is refused by the allow-list. */
    @Override
    @SuppressWarnings("rawtypes")
    public boolean isBodyAssignableTo(Class c) {
        if (serialized == null) {
            return true;
        }
        try {
            return c != null && c.isInstance(getObject());
        } catch (JMSException e) {
            return false;
        }
    }

    /** The allow-list {@link #getObject()} enforces; the session sets the connection's. */
    final void setAllowList(ObjectMessageAllowList allowList) {
        this.allowList = allowList;
    }

    /** The body as stored: the serialised object, or empty for null. */
    byte[] serializedBody() {
        return serialized == null ? new byte[0] : serialized;
    }

    /** Sets the body from stored bytes (empty for null) without deserialising. */
    void loadSerialized(byte[] body) {
        serialized = body.length == 0 ? null : body;
    }

    static byte[] serialize(Serializable object) throws MessageFormatException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(object);
        } catch (IOException | RuntimeException e) {
            MessageFormatException mfe = new MessageFormatException(
                    "ObjectMessage body of class " + object.getClass().getName() + " cannot be serialised: " + e);
            mfe.initCause(e);
            mfe.setLinkedException(e);
            throw mfe;
        }
        return bytes.toByteArray();
    }

    @Override
    void doClearBody() {
        serialized = null;
    }

    @Override
    BrokerMessage.BodyType bodyType() {
        return BrokerMessage.BodyType.OBJECT;
    }
}

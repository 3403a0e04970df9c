package io.shardq.jms;

import jakarta.jms.Destination;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageFormatException;
import jakarta.jms.TextMessage;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.Map;

/** Messages of "another provider": not ShardQ classes, so the codec must copy them through the JMS API. */
final class ForeignMessages {
    private ForeignMessages() {}

    /**
     * A proxy implementing the JMS interfaces of {@code delegate} (TextMessage, BytesMessage, ...)
     * and forwarding every call: a foreign message of any body type, with the delegate's behaviour.
     */
    static Message wrap(ShardQMessage delegate) {
        return (Message) Proxy.newProxyInstance(
                ForeignMessages.class.getClassLoader(), delegate.getClass().getInterfaces(), (proxy, method, args) -> {
                    try {
                        return method.invoke(delegate, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /** A tiny hand-written TextMessage: fields and a map, no conversions, accepts any property value. */
    static final class ForeignTextMessage implements TextMessage {
        private final Map<String, Object> properties = new LinkedHashMap<>();
        private String text;
        private String messageId;
        private long timestamp;
        private String correlationId;
        private Destination replyTo;
        private Destination destination;
        private int deliveryMode = jakarta.jms.DeliveryMode.PERSISTENT;
        private boolean redelivered;
        private String type;
        private long expiration;
        private long deliveryTime;
        private int priority = 4;

        /** Stores any value, unlike a conforming provider, so the codec's own check can be tested. */
        void putRawProperty(String name, Object value) {
            properties.put(name, value);
        }

        @Override
        public void setText(String string) {
            text = string;
        }

        @Override
        public String getText() {
            return text;
        }

        @Override
        public String getJMSMessageID() {
            return messageId;
        }

        @Override
        public void setJMSMessageID(String id) {
            messageId = id;
        }

        @Override
        public long getJMSTimestamp() {
            return timestamp;
        }

        @Override
        public void setJMSTimestamp(long timestamp) {
            this.timestamp = timestamp;
        }

        @Override
        public byte[] getJMSCorrelationIDAsBytes() {
            return correlationId == null ? null : correlationId.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public void setJMSCorrelationIDAsBytes(byte[] correlationID) {
            correlationId = new String(correlationID, StandardCharsets.UTF_8);
        }

        @Override
        public void setJMSCorrelationID(String correlationID) {
            correlationId = correlationID;
        }

        @Override
        public String getJMSCorrelationID() {
            return correlationId;
        }

        @Override
        public Destination getJMSReplyTo() {
            return replyTo;
        }

        @Override
        public void setJMSReplyTo(Destination replyTo) {
            this.replyTo = replyTo;
        }

        @Override
        public Destination getJMSDestination() {
            return destination;
        }

        @Override
        public void setJMSDestination(Destination destination) {
            this.destination = destination;
        }

        @Override
        public int getJMSDeliveryMode() {
            return deliveryMode;
        }

        @Override
        public void setJMSDeliveryMode(int deliveryMode) {
            this.deliveryMode = deliveryMode;
        }

        @Override
        public boolean getJMSRedelivered() {
            return redelivered;
        }

        @Override
        public void setJMSRedelivered(boolean redelivered) {
            this.redelivered = redelivered;
        }

        @Override
        public String getJMSType() {
            return type;
        }

        @Override
        public void setJMSType(String type) {
            this.type = type;
        }

        @Override
        public long getJMSExpiration() {
            return expiration;
        }

        @Override
        public void setJMSExpiration(long expiration) {
            this.expiration = expiration;
        }

        @Override
        public long getJMSDeliveryTime() {
            return deliveryTime;
        }

        @Override
        public void setJMSDeliveryTime(long deliveryTime) {
            this.deliveryTime = deliveryTime;
        }

        @Override
        public int getJMSPriority() {
            return priority;
        }

        @Override
        public void setJMSPriority(int priority) {
            this.priority = priority;
        }

        @Override
        public void clearProperties() {
            properties.clear();
        }

        @Override
        public boolean propertyExists(String name) {
            return properties.containsKey(name);
        }

        @Override
        public boolean getBooleanProperty(String name) {
            return (Boolean) properties.get(name);
        }

        @Override
        public byte getByteProperty(String name) {
            return (Byte) properties.get(name);
        }

        @Override
        public short getShortProperty(String name) {
            return (Short) properties.get(name);
        }

        @Override
        public int getIntProperty(String name) {
            return (Integer) properties.get(name);
        }

        @Override
        public long getLongProperty(String name) {
            return (Long) properties.get(name);
        }

        @Override
        public float getFloatProperty(String name) {
            return (Float) properties.get(name);
        }

        @Override
        public double getDoubleProperty(String name) {
            return (Double) properties.get(name);
        }

        @Override
        public String getStringProperty(String name) {
            return (String) properties.get(name);
        }

        @Override
        public Object getObjectProperty(String name) {
            return properties.get(name);
        }

        @Override
        public Enumeration<String> getPropertyNames() {
            return Collections.enumeration(properties.keySet());
        }

        @Override
        public void setBooleanProperty(String name, boolean value) {
            properties.put(name, value);
        }

        @Override
        public void setByteProperty(String name, byte value) {
            properties.put(name, value);
        }

        @Override
        public void setShortProperty(String name, short value) {
            properties.put(name, value);
        }

        @Override
        public void setIntProperty(String name, int value) {
            properties.put(name, value);
        }

        @Override
        public void setLongProperty(String name, long value) {
            properties.put(name, value);
        }

        @Override
        public void setFloatProperty(String name, float value) {
            properties.put(name, value);
        }

        @Override
        public void setDoubleProperty(String name, double value) {
            properties.put(name, value);
        }

        @Override
        public void setStringProperty(String name, String value) {
            properties.put(name, value);
        }

        @Override
        public void setObjectProperty(String name, Object value) {
            properties.put(name, value);
        }

        @Override
        public void acknowledge() {}

        @Override
        public void clearBody() {
            text = null;
        }

        @Override
        public <T> T getBody(Class<T> c) throws JMSException {
            if (text != null && !c.isInstance(text)) {
                throw new MessageFormatException("not a " + c);
            }
            return c.cast(text);
        }

        @Override
        @SuppressWarnings("rawtypes")
        public boolean isBodyAssignableTo(Class c) {
            return text == null || c.isInstance(text);
        }
    }
}

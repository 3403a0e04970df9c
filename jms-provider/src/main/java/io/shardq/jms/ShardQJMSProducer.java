package io.shardq.jms;

import static io.shardq.jms.ShardQJMSContext.unchecked;

import jakarta.jms.BytesMessage;
import jakarta.jms.CompletionListener;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Destination;
import jakarta.jms.JMSProducer;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.MessageFormatRuntimeException;
import java.io.Serializable;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The simplified API's producer: settings and properties held here, applied to each message at
 * send, through one {@link ShardQMessageProducer} without a fixed destination.
 */
final class ShardQJMSProducer implements JMSProducer {
    private final ShardQJMSContext context;
    private final ShardQMessageProducer producer;
    private final ShardQMessage propertyHolder = new ShardQMessage(); // reuses the JMS conversion rules
    private int deliveryMode = DeliveryMode.PERSISTENT;
    private int priority = Message.DEFAULT_PRIORITY;
    private long timeToLive;
    private long deliveryDelay;
    private boolean disableMessageId;
    private boolean disableTimestamp;
    private String correlationId;
    private byte[] correlationIdBytes;
    private String type;
    private Destination replyTo;
    private CompletionListener async;

    ShardQJMSProducer(ShardQJMSContext context, ShardQMessageProducer producer) {
        this.context = context;
        this.producer = producer;
    }

    @Override
    public JMSProducer send(Destination destination, Message message) {
        if (message == null) {
            throw new MessageFormatRuntimeException("message must not be null");
        }
        unchecked(() -> {
            for (String name : propertyNames()) {
                message.setObjectProperty(name, propertyHolder.getObjectProperty(name));
            }
            if (correlationIdBytes != null) {
                message.setJMSCorrelationIDAsBytes(correlationIdBytes);
            } else if (correlationId != null) {
                message.setJMSCorrelationID(correlationId);
            }
            if (type != null) {
                message.setJMSType(type);
            }
            if (replyTo != null) {
                message.setJMSReplyTo(replyTo);
            }
            producer.setDisableMessageID(disableMessageId);
            producer.setDisableMessageTimestamp(disableTimestamp);
            producer.setDeliveryDelay(deliveryDelay);
            if (async != null) {
                producer.send(destination, message, deliveryMode, priority, timeToLive, async);
            } else {
                producer.send(destination, message, deliveryMode, priority, timeToLive);
            }
            return null;
        });
        return this;
    }

    @Override
    public JMSProducer send(Destination destination, String body) {
        return send(destination, context.createTextMessage(body));
    }

    @Override
    public JMSProducer send(Destination destination, Map<String, Object> body) {
        MapMessage m = context.createMapMessage();
        if (body != null) {
            unchecked(() -> {
                for (Map.Entry<String, Object> e : body.entrySet()) {
                    m.setObject(e.getKey(), e.getValue());
                }
                return null;
            });
        }
        return send(destination, m);
    }

    @Override
    public JMSProducer send(Destination destination, byte[] body) {
        BytesMessage m = context.createBytesMessage();
        if (body != null) {
            unchecked(() -> {
                m.writeBytes(body);
                return null;
            });
        }
        return send(destination, m);
    }

    @Override
    public JMSProducer send(Destination destination, Serializable body) {
        return send(destination, context.createObjectMessage(body));
    }

    @Override
    public JMSProducer setDisableMessageID(boolean value) {
        disableMessageId = value;
        return this;
    }

    @Override
    public boolean getDisableMessageID() {
        return disableMessageId;
    }

    @Override
    public JMSProducer setDisableMessageTimestamp(boolean value) {
        disableTimestamp = value;
        return this;
    }

    @Override
    public boolean getDisableMessageTimestamp() {
        return disableTimestamp;
    }

    @Override
    public JMSProducer setDeliveryMode(int deliveryMode) {
        if (deliveryMode != DeliveryMode.PERSISTENT && deliveryMode != DeliveryMode.NON_PERSISTENT) {
            throw new JMSRuntimeException("delivery mode " + deliveryMode + " is invalid");
        }
        this.deliveryMode = deliveryMode;
        return this;
    }

    @Override
    public int getDeliveryMode() {
        return deliveryMode;
    }

    @Override
    public JMSProducer setPriority(int priority) {
        if (priority < 0 || priority > 9) {
            throw new JMSRuntimeException("priority " + priority + " is invalid: expected 0..9");
        }
        this.priority = priority;
        return this;
    }

    @Override
    public int getPriority() {
        return priority;
    }

    @Override
    public JMSProducer setTimeToLive(long timeToLive) {
        this.timeToLive = timeToLive;
        return this;
    }

    @Override
    public long getTimeToLive() {
        return timeToLive;
    }

    @Override
    public JMSProducer setDeliveryDelay(long deliveryDelay) {
        if (deliveryDelay < 0) {
            throw new JMSRuntimeException("delivery delay " + deliveryDelay + " ms is invalid: expected 0 or more");
        }
        this.deliveryDelay = deliveryDelay;
        return this;
    }

    @Override
    public long getDeliveryDelay() {
        return deliveryDelay;
    }

    @Override
    public JMSProducer setAsync(CompletionListener completionListener) {
        this.async = completionListener;
        return this;
    }

    @Override
    public CompletionListener getAsync() {
        return async;
    }

    private JMSProducer property(Call call) {
        unchecked(() -> {
            call.run();
            return null;
        });
        return this;
    }

    private interface Call {
        void run() throws jakarta.jms.JMSException;
    }

    @Override
    public JMSProducer setProperty(String name, boolean value) {
        return property(() -> propertyHolder.setBooleanProperty(name, value));
    }

    @Override
    public JMSProducer setProperty(String name, byte value) {
        return property(() -> propertyHolder.setByteProperty(name, value));
    }

    @Override
    public JMSProducer setProperty(String name, short value) {
        return property(() -> propertyHolder.setShortProperty(name, value));
    }

    @Override
    public JMSProducer setProperty(String name, int value) {
        return property(() -> propertyHolder.setIntProperty(name, value));
    }

    @Override
    public JMSProducer setProperty(String name, long value) {
        return property(() -> propertyHolder.setLongProperty(name, value));
    }

    @Override
    public JMSProducer setProperty(String name, float value) {
        return property(() -> propertyHolder.setFloatProperty(name, value));
    }

    @Override
    public JMSProducer setProperty(String name, double value) {
        return property(() -> propertyHolder.setDoubleProperty(name, value));
    }

    @Override
    public JMSProducer setProperty(String name, String value) {
        return property(() -> propertyHolder.setStringProperty(name, value));
    }

    @Override
    public JMSProducer setProperty(String name, Object value) {
        return property(() -> propertyHolder.setObjectProperty(name, value));
    }

    @Override
    public JMSProducer clearProperties() {
        return property(propertyHolder::clearProperties);
    }

    @Override
    public boolean propertyExists(String name) {
        return unchecked(() -> propertyHolder.propertyExists(name));
    }

    @Override
    public boolean getBooleanProperty(String name) {
        return unchecked(() -> propertyHolder.getBooleanProperty(name));
    }

    @Override
    public byte getByteProperty(String name) {
        return unchecked(() -> propertyHolder.getByteProperty(name));
    }

    @Override
    public short getShortProperty(String name) {
        return unchecked(() -> propertyHolder.getShortProperty(name));
    }

    @Override
    public int getIntProperty(String name) {
        return unchecked(() -> propertyHolder.getIntProperty(name));
    }

    @Override
    public long getLongProperty(String name) {
        return unchecked(() -> propertyHolder.getLongProperty(name));
    }

    @Override
    public float getFloatProperty(String name) {
        return unchecked(() -> propertyHolder.getFloatProperty(name));
    }

    @Override
    public double getDoubleProperty(String name) {
        return unchecked(() -> propertyHolder.getDoubleProperty(name));
    }

    @Override
    public String getStringProperty(String name) {
        return unchecked(() -> propertyHolder.getStringProperty(name));
    }

    @Override
    public Object getObjectProperty(String name) {
        return unchecked(() -> propertyHolder.getObjectProperty(name));
    }

    @Override
    public Set<String> getPropertyNames() {
        return Collections.unmodifiableSet(propertyNames());
    }

    private Set<String> propertyNames() {
        return unchecked(() -> {
            Map<String, Object> names = new LinkedHashMap<>();
            var e = propertyHolder.getPropertyNames();
            while (e.hasMoreElements()) {
                names.put((String) e.nextElement(), Boolean.TRUE);
            }
            return names.keySet();
        });
    }

    @Override
    public JMSProducer setJMSCorrelationIDAsBytes(byte[] correlationID) {
        this.correlationIdBytes = correlationID;
        this.correlationId = null;
        return this;
    }

    @Override
    public byte[] getJMSCorrelationIDAsBytes() {
        return correlationIdBytes;
    }

    @Override
    public JMSProducer setJMSCorrelationID(String correlationID) {
        this.correlationId = correlationID;
        this.correlationIdBytes = null;
        return this;
    }

    @Override
    public String getJMSCorrelationID() {
        return correlationId;
    }

    @Override
    public JMSProducer setJMSType(String type) {
        this.type = type;
        return this;
    }

    @Override
    public String getJMSType() {
        return type;
    }

    @Override
    public JMSProducer setJMSReplyTo(Destination replyTo) {
        this.replyTo = replyTo;
        return this;
    }

    @Override
    public Destination getJMSReplyTo() {
        return replyTo;
    }
}

package io.shardq.jms;

import io.shardq.broker.Privilege;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.shard.BrokerProducer;
import jakarta.jms.CompletionListener;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Destination;
import jakarta.jms.IllegalStateException;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.Queue;
import jakarta.jms.QueueSender;
import jakarta.jms.Topic;
import jakarta.jms.TopicPublisher;

/**
 * Sends through its session. The session's engine pins the first send to a destination to one
 * shard for the session's life, so messages of one session arrive in send order.
 */
final class ShardQMessageProducer implements QueueSender, TopicPublisher {
    private final ShardQSession session;
    private final ShardQDestination destination;
    private int deliveryMode = DeliveryMode.PERSISTENT;
    private int priority = Message.DEFAULT_PRIORITY;
    private long timeToLive = Message.DEFAULT_TIME_TO_LIVE;
    private long deliveryDelay = Message.DEFAULT_DELIVERY_DELAY;
    private boolean disableMessageId;
    private boolean disableTimestamp;
    private volatile boolean closed;

    private final BrokerProducer engine;

    ShardQMessageProducer(ShardQSession session, ShardQDestination destination, BrokerProducer engine) {
        this.session = session;
        this.destination = destination;
        this.engine = engine;
    }

    @Override
    public void setDisableMessageID(boolean value) throws JMSException {
        checkOpen();
        disableMessageId = value;
    }

    @Override
    public boolean getDisableMessageID() throws JMSException {
        checkOpen();
        return disableMessageId;
    }

    @Override
    public void setDisableMessageTimestamp(boolean value) throws JMSException {
        checkOpen();
        disableTimestamp = value;
    }

    @Override
    public boolean getDisableMessageTimestamp() throws JMSException {
        checkOpen();
        return disableTimestamp;
    }

    @Override
    public void setDeliveryMode(int deliveryMode) throws JMSException {
        checkOpen();
        checkDeliveryMode(deliveryMode);
        this.deliveryMode = deliveryMode;
    }

    @Override
    public int getDeliveryMode() throws JMSException {
        checkOpen();
        return deliveryMode;
    }

    @Override
    public void setPriority(int defaultPriority) throws JMSException {
        checkOpen();
        checkPriority(defaultPriority);
        this.priority = defaultPriority;
    }

    @Override
    public int getPriority() throws JMSException {
        checkOpen();
        return priority;
    }

    @Override
    public void setTimeToLive(long timeToLive) throws JMSException {
        checkOpen();
        this.timeToLive = timeToLive;
    }

    @Override
    public long getTimeToLive() throws JMSException {
        checkOpen();
        return timeToLive;
    }

    @Override
    public void setDeliveryDelay(long deliveryDelay) throws JMSException {
        checkOpen();
        checkDeliveryDelay(deliveryDelay);
        this.deliveryDelay = deliveryDelay;
    }

    @Override
    public long getDeliveryDelay() throws JMSException {
        checkOpen();
        return deliveryDelay;
    }

    static void checkDeliveryDelay(long deliveryDelay) throws JMSException {
        if (deliveryDelay < 0) {
            throw new JMSException("delivery delay " + deliveryDelay + " ms is invalid: expected 0 or more");
        }
    }

    @Override
    public Destination getDestination() throws JMSException {
        checkOpen();
        return destination;
    }

    @Override
    public Queue getQueue() throws JMSException {
        checkOpen();
        if (destination != null && !(destination instanceof Queue)) {
            throw new IllegalStateException("this producer sends to " + destination + ", not to a queue");
        }
        return (Queue) destination;
    }

    @Override
    public Topic getTopic() throws JMSException {
        checkOpen();
        if (destination != null && !(destination instanceof Topic)) {
            throw new IllegalStateException("this producer sends to " + destination + ", not to a topic");
        }
        return (Topic) destination;
    }

    @Override
    public void publish(Message message) throws JMSException {
        send(message);
    }

    @Override
    public void publish(Message message, int deliveryMode, int priority, long timeToLive) throws JMSException {
        send(message, deliveryMode, priority, timeToLive);
    }

    @Override
    public void publish(Topic topic, Message message) throws JMSException {
        send(topic, message);
    }

    @Override
    public void publish(Topic topic, Message message, int deliveryMode, int priority, long timeToLive)
            throws JMSException {
        send(topic, message, deliveryMode, priority, timeToLive);
    }

    @Override
    public void send(Message message) throws JMSException {
        send(message, deliveryMode, priority, timeToLive);
    }

    @Override
    public void send(Message message, int deliveryMode, int priority, long timeToLive) throws JMSException {
        checkOpen();
        doSend(fixedDestination(), message, deliveryMode, priority, timeToLive);
    }

    @Override
    public void send(Destination destination, Message message) throws JMSException {
        send(destination, message, deliveryMode, priority, timeToLive);
    }

    @Override
    public void send(Destination destination, Message message, int deliveryMode, int priority, long timeToLive)
            throws JMSException {
        checkOpen();
        doSend(namedDestination(destination), message, deliveryMode, priority, timeToLive);
    }

    @Override
    public void send(Queue queue, Message message) throws JMSException {
        send((Destination) queue, message);
    }

    @Override
    public void send(Queue queue, Message message, int deliveryMode, int priority, long timeToLive)
            throws JMSException {
        send((Destination) queue, message, deliveryMode, priority, timeToLive);
    }

    /**
     * The destination of a send that names none: this producer's. JMS 3.1 (7.2) has a producer
     * created without a destination throw {@link UnsupportedOperationException} here: it is the
     * specified refusal, not a missing feature.
     */
    private ShardQDestination fixedDestination() {
        if (destination == null) {
            throw new UnsupportedOperationException("this producer has no destination: use send(destination, message)");
        }
        return destination;
    }

    /**
     * The destination a send names: only a producer created without one may name it (JMS 3.1,
     * 7.2: {@link UnsupportedOperationException} otherwise), and it must not be null.
     */
    private ShardQDestination namedDestination(Destination named) throws JMSException {
        if (this.destination != null) {
            throw new UnsupportedOperationException("this producer sends to " + this.destination
                    + "; create one without a destination to choose per send");
        }
        if (named == null) {
            throw new InvalidDestinationException("destination must not be null");
        }
        return ShardQSession.destinationOf(named);
    }

    void doSend(ShardQDestination target, Message message, int mode, int prio, long ttl) throws JMSException {
        java.io.InputStream stream = bodyStream(message, mode);
        BrokerMessage bm = prepare(target, message, mode, prio, ttl);
        session.call(s -> {
            if (stream == null) {
                engine.send(target.getName(), bm);
            } else {
                engine.send(target.getName(), bm, stream);
            }
            return null;
        });
    }

    /**
     * The body stream of a message sent with {@code JMS_ShardQ_InputStream} (or a received streamed
     * message sent on), checked: persistent and without a delivery delay; null for an ordinary body.
     */
    private java.io.InputStream bodyStream(Message message, int mode) throws JMSException {
        if (!(message instanceof ShardQBytesMessage b)) {
            return null;
        }
        java.io.InputStream stream = b.streamToSend();
        if (stream == null) {
            return null;
        }
        if (mode == DeliveryMode.NON_PERSISTENT) {
            throw new jakarta.jms.MessageFormatException(
                    "a message with a streamed body (" + ShardQMessage.INPUT_STREAM
                            + ") must be sent PERSISTENT: the body is stored in PostgreSQL, and a non-persistent message never is");
        }
        if (deliveryDelay > 0) {
            throw new jakarta.jms.MessageFormatException("a message with a streamed body (" + ShardQMessage.INPUT_STREAM
                    + ") cannot be sent with a delivery delay (" + deliveryDelay + " ms): set the delay to 0");
        }
        return stream;
    }

    /**
     * Everything a send does before the engine: the checks (a bad argument is thrown here, by the
     * send itself, also for an asynchronous one), the headers, the conversion.
     */
    private BrokerMessage prepare(ShardQDestination target, Message message, int mode, int prio, long ttl)
            throws JMSException {
        if (message == null) {
            throw new jakarta.jms.MessageFormatException("message must not be null");
        }
        // before the message is touched: a refused send changes nothing (cached: no query per message)
        session.connection().require(target.getName(), Privilege.SEND);
        if (destination == null) {
            // an anonymous producer names its destination per send (a fixed one was checked when created):
            // a topic is created as a topic, and a queue's name is not sent to as a topic
            session.requireKind(target);
        }
        checkDeliveryMode(mode);
        checkPriority(prio);
        long now = System.currentTimeMillis();
        message.setJMSDestination(target);
        message.setJMSDeliveryMode(mode);
        message.setJMSPriority(prio);
        message.setJMSTimestamp(disableTimestamp ? 0 : now);
        message.setJMSExpiration(ttl > 0 ? now + ttl : 0);
        message.setJMSDeliveryTime(now + deliveryDelay);
        message.setJMSMessageID(disableMessageId ? null : session.nextMessageId());
        String user = session.connection().user();
        if (message instanceof ShardQMessage own) {
            own.setProviderProperty(ShardQMessage.JMSX_USER_ID, user); // the sent message shows it, as headers
        }
        try {
            return MessageCodec.toBroker(message, user);
        } catch (IllegalArgumentException e) {
            throw Exceptions.translate(e); // text UTF-8 cannot hold, an unsupported property type
        }
    }

    // ---- asynchronous send: checked and queued here, written and completed by the session's AsyncSender

    @Override
    public void send(Message message, CompletionListener completionListener) throws JMSException {
        send(message, deliveryMode, priority, timeToLive, completionListener);
    }

    @Override
    public void send(Message message, int deliveryMode, int priority, long timeToLive, CompletionListener listener)
            throws JMSException {
        checkOpen();
        checkListener(listener);
        sendAsync(fixedDestination(), message, deliveryMode, priority, timeToLive, listener);
    }

    @Override
    public void send(Destination destination, Message message, CompletionListener completionListener)
            throws JMSException {
        send(destination, message, deliveryMode, priority, timeToLive, completionListener);
    }

    @Override
    public void send(
            Destination destination,
            Message message,
            int deliveryMode,
            int priority,
            long timeToLive,
            CompletionListener listener)
            throws JMSException {
        checkOpen();
        checkListener(listener);
        sendAsync(namedDestination(destination), message, deliveryMode, priority, timeToLive, listener);
    }

    private void sendAsync(
            ShardQDestination target, Message message, int mode, int prio, long ttl, CompletionListener listener)
            throws JMSException {
        if (message instanceof ShardQBytesMessage b && b.streamToSend() != null) {
            throw new jakarta.jms.MessageFormatException("a message with a streamed body (" + ShardQMessage.INPUT_STREAM
                    + ") cannot be sent asynchronously: the send reads the stream, so send it without a"
                    + " CompletionListener");
        }
        BrokerMessage bm = prepare(target, message, mode, prio, ttl);
        session.asyncSender().submit(new AsyncSender.Item(target.getName(), bm, message, listener));
    }

    private static void checkListener(CompletionListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("completion listener must not be null");
        }
    }

    private static void checkDeliveryMode(int mode) throws JMSException {
        if (mode != DeliveryMode.PERSISTENT && mode != DeliveryMode.NON_PERSISTENT) {
            throw new JMSException(
                    "delivery mode " + mode + " is invalid: expected PERSISTENT (2) or NON_PERSISTENT (1)");
        }
    }

    private static void checkPriority(int priority) throws JMSException {
        if (priority < 0 || priority > 9) {
            throw new JMSException("priority " + priority + " is invalid: expected 0..9");
        }
    }

    @Override
    public void close() throws JMSException {
        if (closed) {
            return;
        }
        ThreadRules.checkNotInCompletion(session, "close its own producer");
        session.awaitAsyncSends(); // returns after the outstanding completions (JMS 3.1, 7.3.7)
        closed = true;
        engine.close();
        session.removed(this);
    }

    void closedBySession() {
        closed = true;
    }

    private void checkOpen() throws IllegalStateException {
        if (closed || session.isClosed()) {
            throw Exceptions.closed("producer");
        }
    }
}

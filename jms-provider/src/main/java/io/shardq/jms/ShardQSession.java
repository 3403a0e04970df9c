package io.shardq.jms;

import io.shardq.broker.Broker;
import io.shardq.broker.Privilege;
import io.shardq.broker.SubscriptionSpec;
import io.shardq.broker.catalog.Names;
import io.shardq.broker.kv.Codec;
import io.shardq.broker.kv.KvCache;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.shard.Delivery;
import jakarta.jms.BytesMessage;
import jakarta.jms.Destination;
import jakarta.jms.IllegalStateException;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.JMSException;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageListener;
import jakarta.jms.MessageProducer;
import jakarta.jms.ObjectMessage;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import jakarta.jms.QueueReceiver;
import jakarta.jms.QueueSender;
import jakarta.jms.QueueSession;
import jakarta.jms.Session;
import jakarta.jms.StreamMessage;
import jakarta.jms.TemporaryQueue;
import jakarta.jms.TemporaryTopic;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;
import jakarta.jms.TopicPublisher;
import jakarta.jms.TopicSession;
import jakarta.jms.TopicSubscriber;
import java.io.Serializable;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A JMS session over one engine {@link BrokerSession}. All engine calls go through {@link #lock},
 * so the application thread and the session's listener thread never use it at once. Message
 * listeners of a session run one at a time on the session's own thread, as JMS requires.
 *
 * <p>ShardQ extension: {@link #getConnection()} exposes the JDBC connection of a transacted
 * session's current transaction, so the application's own SQL commits or rolls back with the
 * messages.
 */
public class ShardQSession implements QueueSession, TopicSession {
    private static final AtomicLong SESSION_IDS = new AtomicLong();

    private final ShardQConnection connection;
    private final BrokerSession engine;
    private final int sessionMode;
    final ReentrantLock lock = new ReentrantLock();
    private final List<ShardQMessageConsumer> consumers = new CopyOnWriteArrayList<>();
    private final List<ShardQMessageProducer> producers = new CopyOnWriteArrayList<>();
    private final List<ShardQQueueBrowser> browsers = new CopyOnWriteArrayList<>();
    private final String idPrefix;
    private final AtomicLong messageCounter = new AtomicLong();
    private volatile boolean closed;
    private volatile MessageListener sessionListener;
    private ListenerDispatcher dispatcher;

    ShardQSession(ShardQConnection connection, BrokerSession engine, int sessionMode) {
        this.connection = connection;
        this.engine = engine;
        this.sessionMode = sessionMode;
        this.idPrefix = "ID:" + connection.broker().instanceId() + "-" + SESSION_IDS.incrementAndGet() + "-";
        engine.origin(connection.clientIdOrNull(), connection.connectionId()); // noLocal subscribers
    }

    ShardQConnection connection() {
        return connection;
    }

    Broker broker() {
        return connection.broker();
    }

    String nextMessageId() {
        return idPrefix + messageCounter.incrementAndGet();
    }

    /** Runs an engine call under the session lock, translating its exceptions. */
    <T> T call(EngineCall<T> work) throws JMSException {
        AsyncSender a = async;
        if (a != null) {
            a.awaitIdle(); // after the asynchronous sends made before (not on the sender's own thread)
        }
        lock.lock();
        try {
            return work.run(engine);
        } catch (RuntimeException e) {
            JMSException j = Exceptions.translate(e);
            if (Exceptions.isConnectionLoss(e)) {
                connection.onException(j);
            }
            throw j;
        } finally {
            lock.unlock();
        }
    }

    /** The engine session, for the XA resource (which takes {@link #lock} itself). */
    final BrokerSession engineSession() {
        return engine;
    }

    interface EngineCall<T> {
        T run(BrokerSession s) throws JMSException;
    }

    // ---------------------------------------------------------------- messages

    @Override
    public BytesMessage createBytesMessage() throws JMSException {
        checkOpen();
        return new ShardQBytesMessage();
    }

    @Override
    public MapMessage createMapMessage() throws JMSException {
        checkOpen();
        return new ShardQMapMessage();
    }

    @Override
    public Message createMessage() throws JMSException {
        checkOpen();
        return new ShardQMessage();
    }

    @Override
    public ObjectMessage createObjectMessage() throws JMSException {
        checkOpen();
        ShardQObjectMessage m = new ShardQObjectMessage();
        m.setAllowList(connection.allowList());
        return m;
    }

    @Override
    public ObjectMessage createObjectMessage(Serializable object) throws JMSException {
        ObjectMessage m = createObjectMessage();
        m.setObject(object);
        return m;
    }

    @Override
    public StreamMessage createStreamMessage() throws JMSException {
        checkOpen();
        return new ShardQStreamMessage();
    }

    @Override
    public TextMessage createTextMessage() throws JMSException {
        checkOpen();
        return new ShardQTextMessage();
    }

    @Override
    public TextMessage createTextMessage(String text) throws JMSException {
        TextMessage m = createTextMessage();
        m.setText(text);
        return m;
    }

    /** The delivered message as the application sees it, with its acknowledger. */
    Message toJms(Delivery d, ShardQDestination destination) throws JMSException {
        ShardQMessage m = MessageCodec.fromBroker(d.message(), destination, d.deliveryCount(), connection.allowList());
        streamed(m, d.message(), connection);
        if (m.getJMSReplyTo() instanceof ShardQDestination r
                && (r instanceof TemporaryQueue || r instanceof TemporaryTopic)) {
            // a reply-to of this connection's own: the object it created, which delete() accepts
            java.util.Optional<ShardQDestination> own = connection.temporaries().own(r.getName());
            if (own.isPresent()) {
                m.setJMSReplyTo(own.get());
            }
        }
        if (sessionMode == Session.CLIENT_ACKNOWLEDGE) {
            m.setAcknowledger(this::acknowledge);
        }
        return m;
    }

    /** A received or browsed message whose body was streamed reads it through the engine, one chunk at a time. */
    static void streamed(ShardQMessage m, io.shardq.broker.message.BrokerMessage bm, ShardQConnection connection) {
        if (bm.streamedBody() != null && m instanceof ShardQBytesMessage b) {
            b.loadStreamed(bm.streamedBody(), connection.broker()::openBody);
        }
    }

    // ---------------------------------------------------------------- transactions

    @Override
    public boolean getTransacted() throws JMSException {
        checkOpen();
        return sessionMode == Session.SESSION_TRANSACTED;
    }

    @Override
    public int getAcknowledgeMode() throws JMSException {
        checkOpen();
        return sessionMode;
    }

    /** The asynchronous sends of this session, once one was made. */
    private volatile AsyncSender async;

    AsyncSender asyncSender() {
        AsyncSender a = async;
        if (a == null) {
            synchronized (this) {
                if (async == null) {
                    async = new AsyncSender(this);
                }
                a = async;
            }
        }
        return a;
    }

    /** Waits until this session's asynchronous sends are written and their listeners called. */
    void awaitAsyncSends() {
        AsyncSender a = async;
        if (a != null) {
            a.awaitIdle();
        }
    }

    @Override
    public void commit() throws JMSException {
        checkOpen();
        ThreadRules.checkNotInCompletion(this, "commit its own session");
        if (sessionMode != Session.SESSION_TRANSACTED) {
            throw new IllegalStateException("commit() needs a transacted session");
        }
        call(s -> {
            s.commit();
            return null;
        });
    }

    @Override
    public void rollback() throws JMSException {
        checkOpen();
        ThreadRules.checkNotInCompletion(this, "roll back its own session");
        if (sessionMode != Session.SESSION_TRANSACTED) {
            throw new IllegalStateException("rollback() needs a transacted session");
        }
        call(s -> {
            s.rollback();
            return null;
        });
    }

    @Override
    public void recover() throws JMSException {
        checkOpen();
        if (sessionMode == Session.SESSION_TRANSACTED) {
            throw new IllegalStateException("recover() is for non-transacted sessions; use rollback()");
        }
        recoverDelivered();
    }

    /** CLIENT_ACKNOWLEDGE: consumes every message delivered by this session so far. */
    void acknowledge() throws JMSException {
        if (closed) {
            throw Exceptions.closed("session");
        }
        acknowledgeDelivered();
    }

    /** AUTO_ACKNOWLEDGE or DUPS_OK_ACKNOWLEDGE: the provider acknowledges each delivery itself. */
    boolean acknowledgesAutomatically() {
        return sessionMode == Session.AUTO_ACKNOWLEDGE || sessionMode == Session.DUPS_OK_ACKNOWLEDGE;
    }

    /**
     * The provider's own acknowledgement of what was delivered (after {@code onMessage} returned, or
     * once {@code receiveBody} read the body): also while {@link #close()} waits for that delivery.
     */
    void acknowledgeDelivered() throws JMSException {
        call(s -> {
            s.acknowledge();
            return null;
        });
    }

    /** The provider's own recovery of what was delivered: it is delivered again. */
    void recoverDelivered() throws JMSException {
        call(s -> {
            s.recover();
            return null;
        });
    }

    /** How an application's transaction that this session joined ended: see {@link #transactionEnded}. */
    public enum TransactionOutcome {
        COMMITTED,
        ROLLED_BACK,
        /** The commit's outcome is not known (e.g. the connection was lost while it ran). */
        UNKNOWN
    }

    /**
     * For a session created with {@link ShardQConnection#createSession(java.sql.Connection,
     * boolean)} and {@code awaitsOutcome}: the application's transaction on its connection ended.
     * Call it after the connection's commit or rollback, whether or not {@link #commit()} wrote
     * anything into that transaction; the session is then ready for the next one.
     *
     * @throws IllegalStateException when the session was not created to await outcomes
     */
    public void transactionEnded(TransactionOutcome outcome) throws JMSException {
        checkOpen();
        BrokerSession.Outcome o =
                switch (outcome) {
                    case COMMITTED -> BrokerSession.Outcome.COMMITTED;
                    case ROLLED_BACK -> BrokerSession.Outcome.ROLLED_BACK;
                    case UNKNOWN -> BrokerSession.Outcome.UNKNOWN;
                };
        lock.lock();
        try {
            engine.transactionEnded(o);
        } catch (RuntimeException e) {
            throw Exceptions.translate(e);
        } finally {
            lock.unlock();
        }
    }

    /**
     * The JDBC connection of this transacted session's current transaction: run your own SQL
     * on it and it commits or rolls back with the session's messages. Do not commit, roll back
     * or close it yourself; use {@link #commit()} and {@link #rollback()}.
     */
    public java.sql.Connection getConnection() throws JMSException {
        checkOpen();
        return call(BrokerSession::connection);
    }

    /**
     * The key/value cache {@code name} (created by an administrator: {@code shardq cache create},
     * {@code shardq.create_cache} or {@code CacheAdmin#create}) as this session sees it: in a
     * transacted session its operations join the session's transaction ({@link #commit()} makes the
     * cache entries, the messages and the application's SQL on {@link #getConnection()} visible
     * together, {@link #rollback()} discards all three); in any other session each operation commits
     * on its own. See {@link SessionCache}.
     *
     * @throws JMSException with error code {@code UNKNOWN_CACHE} when no cache has that name
     */
    public <K, V> SessionCache<K, V> cache(String name, Codec<K> keys, Codec<V> values) throws JMSException {
        checkOpen();
        return call(s -> {
            KvCache<K, V> c = broker().cache(name, keys, values);
            return new SessionCacheView<>(s.mode() == BrokerSession.Mode.TRANSACTED ? c.in(s) : c);
        });
    }

    /** {@link #cache(String, Codec, Codec)} with UTF-8 string keys and values. */
    public SessionCache<String, String> cache(String name) throws JMSException {
        return cache(name, Codec.utf8(), Codec.utf8());
    }

    // ---------------------------------------------------------------- destinations

    @Override
    public Queue createQueue(String queueName) throws JMSException {
        checkOpen();
        try {
            Names.checkDestination(queueName);
        } catch (RuntimeException e) {
            throw Exceptions.translate(e);
        }
        return new ShardQQueue(queueName);
    }

    static ShardQQueue queueOf(Destination d) throws JMSException {
        if (d == null) {
            throw new InvalidDestinationException("destination must not be null");
        }
        if (d instanceof ShardQQueue q) {
            return q;
        }
        if (d instanceof Queue q) {
            return new ShardQQueue(q.getQueueName());
        }
        throw new InvalidDestinationException(
                "destination " + io.shardq.broker.message.Texts.cut(String.valueOf(d), 120)
                        + " is not a queue: only queues can be browsed");
    }

    /** A ShardQ queue or topic for any provider's {@link Queue} or {@link Topic}. */
    static ShardQDestination destinationOf(Destination d) throws JMSException {
        if (d == null) {
            throw new InvalidDestinationException("destination must not be null");
        }
        if (d instanceof ShardQDestination sd) {
            return sd;
        }
        if (d instanceof Queue q) {
            return new ShardQQueue(q.getQueueName());
        }
        if (d instanceof Topic t) {
            return new ShardQTopic(t.getTopicName());
        }
        throw new InvalidDestinationException(
                "destination " + io.shardq.broker.message.Texts.cut(String.valueOf(d), 120) + " ("
                        + d.getClass().getName() + ") is neither a Queue nor a Topic");
    }

    static ShardQTopic topicOf(Topic t) throws JMSException {
        if (t == null) {
            throw new InvalidDestinationException("topic must not be null");
        }
        return t instanceof ShardQTopic st ? st : new ShardQTopic(t.getTopicName());
    }

    /**
     * The destination exists with the kind the application names it by: a missing one is created
     * of that kind (when automatic creation is on), and a queue's name used as a topic (or the
     * reverse) is refused with {@link InvalidDestinationException}.
     */
    void requireKind(ShardQDestination d) throws JMSException {
        try {
            broker().requireDestination(d.getName(), true, d.engineKind());
        } catch (io.shardq.broker.ShardQException e) {
            if (e.kind() == io.shardq.broker.ErrorKind.INVALID_ARGUMENT) {
                throw new InvalidDestinationException(e.getMessage(), e.kind().name());
            }
            throw Exceptions.translate(e);
        } catch (RuntimeException e) {
            throw Exceptions.translate(e);
        }
    }

    @Override
    public Topic createTopic(String topicName) throws JMSException {
        checkOpen();
        try {
            Names.checkDestination(topicName);
        } catch (RuntimeException e) {
            throw Exceptions.translate(e);
        }
        return new ShardQTopic(topicName);
    }

    /**
     * A temporary queue owned by this session's connection (see {@link ShardQTemporaryQueue}); its
     * creation is DDL (a table per shard and slot), so create one per connection and reuse it
     * for many requests rather than one per request.
     */
    @Override
    public TemporaryQueue createTemporaryQueue() throws JMSException {
        checkOpen();
        return connection.temporaries().createQueue();
    }

    /**
     * A temporary topic owned by this session's connection (see {@link ShardQTemporaryTopic}):
     * any connection may publish to it; its own connection subscribes (non-durable only).
     */
    @Override
    public TemporaryTopic createTemporaryTopic() throws JMSException {
        checkOpen();
        return connection.temporaries().createTopic();
    }

    // ---------------------------------------------------------------- producers, consumers, browsers

    @Override
    public MessageProducer createProducer(Destination destination) throws JMSException {
        checkOpen();
        ShardQDestination queue = destination == null ? null : destinationOf(destination);
        if (queue != null) {
            connection.require(queue.getName(), Privilege.SEND);
            requireKind(queue);
        }
        io.shardq.broker.shard.BrokerProducer engineProducer =
                call(s -> s.createProducer(queue == null ? null : queue.getName()));
        ShardQMessageProducer p = new ShardQMessageProducer(this, queue, engineProducer);
        producers.add(p);
        return p;
    }

    @Override
    public QueueSender createSender(Queue queue) throws JMSException {
        return (QueueSender) createProducer(queue);
    }

    @Override
    public MessageConsumer createConsumer(Destination destination) throws JMSException {
        return createConsumer(destination, null, false);
    }

    @Override
    public MessageConsumer createConsumer(Destination destination, String messageSelector) throws JMSException {
        return createConsumer(destination, messageSelector, false);
    }

    @Override
    public MessageConsumer createConsumer(Destination destination, String messageSelector, boolean noLocal)
            throws JMSException {
        checkOpen();
        ShardQDestination target = destinationOf(destination);
        connection.temporaries().checkConsumable(target, "consume from");
        if (target instanceof ShardQTopic topic) {
            return subscribe(topic, SubscriptionSpec.Kind.NON_DURABLE, null, messageSelector, noLocal);
        }
        ShardQQueue queue = (ShardQQueue) target;
        io.shardq.broker.selector.Selector selector;
        try {
            selector = io.shardq.broker.selector.Selector.compile(messageSelector);
        } catch (RuntimeException e) {
            throw Exceptions.translate(e);
        }
        connection.require(queue.getQueueName(), Privilege.RECEIVE);
        io.shardq.broker.shard.BrokerConsumer engineConsumer =
                call(s -> s.createConsumer(queue.getQueueName(), selector));
        ShardQMessageConsumer c = new ShardQMessageConsumer(this, queue, engineConsumer);
        consumers.add(c);
        return c;
    }

    @Override
    public QueueReceiver createReceiver(Queue queue) throws JMSException {
        return (QueueReceiver) createConsumer(queue);
    }

    @Override
    public QueueReceiver createReceiver(Queue queue, String messageSelector) throws JMSException {
        return (QueueReceiver) createConsumer(queue, messageSelector);
    }

    @Override
    public QueueBrowser createBrowser(Queue queue) throws JMSException {
        return createBrowser(queue, null);
    }

    @Override
    public QueueBrowser createBrowser(Queue queue, String messageSelector) throws JMSException {
        checkOpen();
        ShardQQueue q = queueOf(queue);
        connection.temporaries().checkConsumable(q, "browse");
        io.shardq.broker.selector.Selector selector;
        try {
            selector = io.shardq.broker.selector.Selector.compile(messageSelector);
        } catch (RuntimeException e) {
            throw Exceptions.translate(e);
        }
        connection.require(q.getQueueName(), Privilege.BROWSE);
        try {
            broker().requireDestination(q.getQueueName(), true);
        } catch (RuntimeException e) {
            throw Exceptions.translate(e);
        }
        ShardQQueueBrowser b = new ShardQQueueBrowser(this, q, messageSelector, selector);
        browsers.add(b);
        return b;
    }

    /**
     * A consumer of a topic subscription (see {@link SubscriptionSpec} for JMS's identities): the
     * selector is the subscription's, applied once per message when it is published.
     */
    private ShardQMessageConsumer subscribe(
            Topic topic, SubscriptionSpec.Kind kind, String name, String messageSelector, boolean noLocal)
            throws JMSException {
        checkOpen();
        ShardQTopic t = topicOf(topic);
        String selector = messageSelector == null || messageSelector.isBlank() ? null : messageSelector;
        try {
            io.shardq.broker.selector.Selector.compile(selector);
        } catch (RuntimeException e) {
            throw Exceptions.translate(e);
        }
        if (kind != SubscriptionSpec.Kind.NON_DURABLE && name == null) {
            throw new jakarta.jms.InvalidDestinationException("a subscription name must not be null");
        }
        if (t instanceof TemporaryTopic && kind != SubscriptionSpec.Kind.NON_DURABLE) {
            throw new InvalidDestinationException(
                    "a temporary topic has only non-durable, unshared subscribers: " + kind + " is refused");
        }
        connection.temporaries().checkConsumable(t, "subscribe to");
        String clientId = connection.clientIdOrNull();
        if (kind == SubscriptionSpec.Kind.DURABLE && clientId == null) {
            throw new IllegalStateException("an unshared durable subscription needs a client id: call"
                    + " Connection.setClientID before creating it, or use createSharedDurableConsumer");
        }
        connection.require(t.getName(), Privilege.RECEIVE);
        requireKind(t);
        SubscriptionSpec spec =
                new SubscriptionSpec(kind, name, clientId, selector, noLocal, connection.connectionId());
        io.shardq.broker.shard.BrokerConsumer engineConsumer = call(s -> s.subscribe(t.getName(), spec));
        ShardQMessageConsumer c = new ShardQMessageConsumer(this, t, engineConsumer, selector, noLocal);
        consumers.add(c);
        return c;
    }

    @Override
    public MessageConsumer createSharedConsumer(Topic topic, String sharedSubscriptionName) throws JMSException {
        return createSharedConsumer(topic, sharedSubscriptionName, null);
    }

    @Override
    public MessageConsumer createSharedConsumer(Topic topic, String sharedSubscriptionName, String messageSelector)
            throws JMSException {
        return subscribe(topic, SubscriptionSpec.Kind.SHARED, sharedSubscriptionName, messageSelector, false);
    }

    @Override
    public TopicSubscriber createDurableSubscriber(Topic topic, String name) throws JMSException {
        return createDurableSubscriber(topic, name, null, false);
    }

    @Override
    public TopicSubscriber createDurableSubscriber(Topic topic, String name, String messageSelector, boolean noLocal)
            throws JMSException {
        return subscribe(topic, SubscriptionSpec.Kind.DURABLE, name, messageSelector, noLocal);
    }

    @Override
    public MessageConsumer createDurableConsumer(Topic topic, String name) throws JMSException {
        return createDurableSubscriber(topic, name, null, false);
    }

    @Override
    public MessageConsumer createDurableConsumer(Topic topic, String name, String messageSelector, boolean noLocal)
            throws JMSException {
        return createDurableSubscriber(topic, name, messageSelector, noLocal);
    }

    @Override
    public MessageConsumer createSharedDurableConsumer(Topic topic, String name) throws JMSException {
        return createSharedDurableConsumer(topic, name, null);
    }

    @Override
    public MessageConsumer createSharedDurableConsumer(Topic topic, String name, String messageSelector)
            throws JMSException {
        return subscribe(topic, SubscriptionSpec.Kind.SHARED_DURABLE, name, messageSelector, false);
    }

    @Override
    public TopicSubscriber createSubscriber(Topic topic) throws JMSException {
        return createSubscriber(topic, null, false);
    }

    @Override
    public TopicSubscriber createSubscriber(Topic topic, String messageSelector, boolean noLocal) throws JMSException {
        return subscribe(topic, SubscriptionSpec.Kind.NON_DURABLE, null, messageSelector, noLocal);
    }

    @Override
    public TopicPublisher createPublisher(Topic topic) throws JMSException {
        return (TopicPublisher) createProducer(topic);
    }

    /**
     * Deletes the durable subscription {@code name} of this connection's client id (shared or
     * not), on every instance. Refused with {@link IllegalStateException} while a consumer of it is
     * open anywhere; {@link InvalidDestinationException} when there is no such subscription.
     */
    @Override
    public void unsubscribe(String name) throws JMSException {
        checkOpen();
        if (name == null) {
            throw new InvalidDestinationException("a subscription name must not be null");
        }
        String clientId = connection.clientIdOrNull();
        try {
            broker().unsubscribe(clientId, name);
        } catch (RuntimeException e) {
            throw Exceptions.translate(e);
        }
    }

    void removed(ShardQMessageConsumer c) {
        consumers.remove(c);
    }

    void removed(ShardQMessageProducer p) {
        producers.remove(p);
    }

    void removed(ShardQQueueBrowser b) {
        browsers.remove(b);
    }

    // ---------------------------------------------------------------- listeners

    @Override
    public MessageListener getMessageListener() throws JMSException {
        checkOpen();
        return sessionListener;
    }

    @Override
    public void setMessageListener(MessageListener listener) throws JMSException {
        checkOpen();
        sessionListener = listener;
    }

    @Override
    public void run() {
        // application-server facility (ServerSessionPool); ShardQ does not load sessions that way
    }

    /** A consumer got or lost a listener: start the session's dispatcher thread if needed. */
    synchronized void listenersChanged() {
        boolean any = consumers.stream().anyMatch(c -> c.listener() != null);
        if (any && dispatcher == null) {
            dispatcher = new ListenerDispatcher(this);
            dispatcher.start();
        } else if (dispatcher != null) {
            dispatcher.wake();
        }
    }

    List<ShardQMessageConsumer> consumers() {
        return consumers;
    }

    void connectionStarted() {
        ListenerDispatcher d = dispatcher;
        if (d != null) {
            d.wake();
        }
    }

    void awaitListenersIdle() {
        ListenerDispatcher d = dispatcher;
        if (d != null && !ThreadRules.inListenerOf(this)) {
            d.awaitIdle();
        }
    }

    // ---------------------------------------------------------------- lifecycle

    @Override
    public void close() throws JMSException {
        if (closed) {
            return;
        }
        ThreadRules.checkNotInListener(this, "close its own session");
        ThreadRules.checkNotInCompletion(this, "close its own session");
        AsyncSender a = async;
        if (a != null) {
            a.stop(); // close() returns after the outstanding completions (JMS 3.1, 7.3.7)
        }
        closed = true;
        ListenerDispatcher d;
        synchronized (this) {
            d = dispatcher;
            dispatcher = null;
        }
        if (d != null) {
            d.stop();
        }
        for (ShardQMessageConsumer c : consumers) {
            c.closedBySession();
        }
        for (ShardQQueueBrowser b : browsers) {
            b.closedBySession();
        }
        for (ShardQMessageProducer p : producers) {
            p.closedBySession();
        }
        lock.lock();
        try {
            engine.close(); // rolls back what is uncommitted
        } catch (RuntimeException e) {
            throw Exceptions.translate(e);
        } finally {
            lock.unlock();
            connection.removed(this);
        }
    }

    boolean isClosed() {
        return closed || connection.isClosed();
    }

    void checkOpen() throws IllegalStateException {
        if (isClosed()) {
            throw Exceptions.closed("session");
        }
    }

    int sessionMode() {
        return sessionMode;
    }
}

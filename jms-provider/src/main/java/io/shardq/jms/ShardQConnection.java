package io.shardq.jms;

import io.shardq.broker.Broker;
import io.shardq.broker.Privilege;
import io.shardq.broker.RoleAccess;
import io.shardq.broker.shard.BrokerSession;
import jakarta.jms.ConnectionConsumer;
import jakarta.jms.ConnectionMetaData;
import jakarta.jms.Destination;
import jakarta.jms.ExceptionListener;
import jakarta.jms.IllegalStateException;
import jakarta.jms.InvalidClientIDException;
import jakarta.jms.JMSException;
import jakarta.jms.Queue;
import jakarta.jms.QueueConnection;
import jakarta.jms.QueueSession;
import jakarta.jms.ServerSessionPool;
import jakarta.jms.Session;
import jakarta.jms.Topic;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A JMS connection: a stop/start switch for delivery and a set of sessions on one ShardQ
 * instance. Opening a connection costs nothing on the database; sessions borrow pooled JDBC
 * connections only while they work.
 */
public class ShardQConnection implements QueueConnection, jakarta.jms.TopicConnection {
    private static final Logger LOG = LoggerFactory.getLogger(ShardQConnection.class);

    private final ShardQConnectionFactory factory;
    private final Broker broker;
    private final RoleAccess access;
    /** The JMS user the connection was created for (JMSXUserID), null for the factory's own identity. */
    private final String user;

    private final List<ShardQSession> sessions = new CopyOnWriteArrayList<>();
    private final Object startLock = new Object();
    private volatile boolean started;
    private volatile boolean closed;
    private volatile boolean clientIdFixed;
    private String clientId;
    private volatile ExceptionListener exceptionListener;
    /** Identifies this connection to noLocal subscribers (a topic message published here is local). */
    private final String connectionId = java.util.UUID.randomUUID().toString();

    private final OwnedTemporaries temporaries = new OwnedTemporaries(this);

    /**
     * @param access what the connection's user may do: full for the factory's own role
     * @param user the user named at creation, null when none was
     */
    ShardQConnection(ShardQConnectionFactory factory, Broker broker, RoleAccess access, String user) {
        this.factory = factory;
        this.broker = broker;
        this.access = access;
        this.user = user;
    }

    /** The user this connection was created for, null when none was named: its sends carry it as JMSXUserID. */
    String user() {
        return user;
    }

    /** True when the client id came from the factory's configuration (setClientID is then refused). */
    private volatile boolean adminClientId;

    /** Claims the factory's configured client id for this new connection (unique in the fleet). */
    void adminClientId(String id) throws JMSException {
        claimClientId(id);
        adminClientId = true;
    }

    /**
     * Throws {@link jakarta.jms.JMSSecurityException} unless the connection's user holds {@code
     * privilege} on the queue (asked of PostgreSQL, cached; see {@link RoleAccess}).
     */
    void require(String queue, Privilege privilege) throws JMSException {
        if (temporaries.owns(queue)) {
            return; // its own temporary destination: the connection may do everything with it
        }
        try {
            access.require(queue, privilege);
        } catch (RuntimeException e) {
            throw Exceptions.translate(e);
        }
    }

    Broker broker() {
        return broker;
    }

    /** The temporary destinations this connection created. */
    OwnedTemporaries temporaries() {
        return temporaries;
    }

    /** Consumers open on the destination {@code name} in this connection's sessions. */
    long consumersOn(String name) {
        return sessions.stream()
                .flatMap(s -> s.consumers().stream())
                .filter(c -> c.queueDestination().getName().equals(name))
                .count();
    }

    ObjectMessageAllowList allowList() {
        return factory.allowList();
    }

    @Override
    public Session createSession(boolean transacted, int acknowledgeMode) throws JMSException {
        return createSession(transacted ? Session.SESSION_TRANSACTED : acknowledgeMode);
    }

    @Override
    public Session createSession(int sessionMode) throws JMSException {
        checkOpen();
        ThreadRules.checkNotInListener(this, "create a session");
        BrokerSession.Mode mode =
                switch (sessionMode) {
                    case Session.SESSION_TRANSACTED -> BrokerSession.Mode.TRANSACTED;
                    case Session.AUTO_ACKNOWLEDGE -> BrokerSession.Mode.AUTO_ACKNOWLEDGE;
                    case Session.CLIENT_ACKNOWLEDGE -> BrokerSession.Mode.CLIENT_ACKNOWLEDGE;
                    case Session.DUPS_OK_ACKNOWLEDGE -> BrokerSession.Mode.DUPS_OK_ACKNOWLEDGE;
                    default ->
                        throw new JMSException(
                                "session mode " + sessionMode + " is invalid: expected"
                                        + " SESSION_TRANSACTED (0), AUTO_ACKNOWLEDGE (1), CLIENT_ACKNOWLEDGE (2) or DUPS_OK_ACKNOWLEDGE (3)");
                };
        clientIdFixed = true;
        ShardQSession s = new ShardQSession(this, broker.openSession(mode), sessionMode);
        sessions.add(s);
        return s;
    }

    /** Adds a session made elsewhere (an XA session) to this connection's sessions. */
    final <S extends ShardQSession> S register(S s) throws JMSException {
        checkOpen();
        clientIdFixed = true;
        sessions.add(s);
        return s;
    }

    @Override
    public Session createSession() throws JMSException {
        return createSession(Session.AUTO_ACKNOWLEDGE);
    }

    /**
     * A transacted session inside a transaction the application manages on its own JDBC
     * connection (e.g. Spring's): sends and receives are written into {@code connection}, and
     * become durable when the application commits it. {@link Session#commit()} writes the
     * session's buffered work into the connection without committing it.
     */
    public ShardQSession createSession(java.sql.Connection connection) throws JMSException {
        return createSession(connection, false);
    }

    /**
     * As {@link #createSession(java.sql.Connection)}; with {@code awaitsOutcome} the application
     * (or its framework's transaction synchronization, as the Spring Boot starter's) tells the
     * session how each of its transactions on {@code connection} ended, with {@link
     * ShardQSession#transactionEnded}: the messages it sent are delivered once committed, and a
     * receive rolled back is delivered again as a failed delivery ({@code JMSRedelivered}, {@code
     * JMSXDeliveryCount}, redelivery delay, dead letter queue). Between {@link Session#commit()}
     * (which writes into the connection) and that call the session refuses other work.
     */
    public ShardQSession createSession(java.sql.Connection connection, boolean awaitsOutcome) throws JMSException {
        checkOpen();
        if (connection == null) {
            throw new JMSException("the application's JDBC connection must not be null");
        }
        clientIdFixed = true;
        ShardQSession s;
        try {
            s = new ShardQSession(this, broker.openSession(connection, awaitsOutcome), Session.SESSION_TRANSACTED);
        } catch (RuntimeException e) {
            throw Exceptions.translate(e);
        }
        sessions.add(s);
        return s;
    }

    /** The messaging domain a connection was created for: see {@link #domain(Domain)}. */
    enum Domain {
        /** {@code createConnection}: queues and topics. */
        BOTH,
        /** {@code createQueueConnection}: a {@link QueueConnection}. */
        QUEUE,
        /** {@code createTopicConnection}: a {@link jakarta.jms.TopicConnection}. */
        TOPIC
    }

    private volatile Domain domain = Domain.BOTH;

    /** Restricts this new connection to a domain, as the legacy factory methods create it. */
    final void domain(Domain d) {
        this.domain = d;
    }

    /**
     * A {@link QueueSession} restricted to queues, as its javadoc says: the topic methods it
     * inherits from {@link Session} (createTopic, createTemporaryTopic, the durable and shared
     * consumers, unsubscribe) throw {@link IllegalStateException}.
     *
     * @throws IllegalStateException on a connection created by {@code createTopicConnection}
     */
    @Override
    public QueueSession createQueueSession(boolean transacted, int acknowledgeMode) throws JMSException {
        checkOpen();
        if (domain == Domain.TOPIC) {
            throw new IllegalStateException("a TopicConnection cannot create a QueueSession: use createTopicSession,"
                    + " or a connection from createConnection() for both domains");
        }
        return new ShardQQueueSession((ShardQSession) createSession(transacted, acknowledgeMode));
    }

    /**
     * A {@link jakarta.jms.TopicSession} restricted to topics, as its javadoc says: createQueue,
     * createTemporaryQueue and createBrowser throw {@link IllegalStateException}.
     *
     * @throws IllegalStateException on a connection created by {@code createQueueConnection}
     */
    @Override
    public jakarta.jms.TopicSession createTopicSession(boolean transacted, int acknowledgeMode) throws JMSException {
        checkOpen();
        if (domain == Domain.QUEUE) {
            throw new IllegalStateException("a QueueConnection cannot create a TopicSession: use createQueueSession,"
                    + " or a connection from createConnection() for both domains");
        }
        return new ShardQTopicSession((ShardQSession) createSession(transacted, acknowledgeMode));
    }

    /** Refuses a topic-only connection consumer on a QueueConnection (QueueConnection's javadoc). */
    private void checkTopicDomain(String what) throws IllegalStateException {
        if (domain == Domain.QUEUE) {
            throw new IllegalStateException("a QueueConnection cannot " + what + ": it is for queues only");
        }
    }

    @Override
    public ConnectionConsumer createConnectionConsumer(
            Topic topic, String messageSelector, ServerSessionPool sessionPool, int maxMessages) throws JMSException {
        return createConnectionConsumer((Destination) topic, messageSelector, sessionPool, maxMessages);
    }

    /** This connection's id, for noLocal. */
    String connectionId() {
        return connectionId;
    }

    /** The client id, null when none is set; using it fixes it (setClientID is then refused). */
    String clientIdOrNull() {
        clientIdFixed = true;
        return clientId;
    }

    void removed(ShardQSession s) {
        sessions.remove(s);
    }

    @Override
    public String getClientID() throws JMSException {
        checkOpen();
        return clientId;
    }

    @Override
    public void setClientID(String clientID) throws JMSException {
        checkOpen();
        if (adminClientId) {
            throw new IllegalStateException("the client id of this connection is \""
                    + io.shardq.broker.message.Texts.quote(clientId)
                    + "\", configured on its connection factory (shardq.jms.client-id, or"
                    + " ShardQConnectionFactory.setClientID): it cannot be set again");
        }
        if (clientIdFixed || clientId != null) {
            throw new IllegalStateException("the client id can only be set once, before the connection is used");
        }
        claimClientId(clientID);
        clientIdFixed = true;
    }

    private void claimClientId(String clientID) throws JMSException {
        if (clientID == null || clientID.isBlank()) {
            throw new InvalidClientIDException("client id must not be empty");
        }
        try {
            clientIdToken = broker.claimClientId(clientID);
        } catch (io.shardq.broker.ShardQException e) {
            if (e.kind() == io.shardq.broker.ErrorKind.CLIENT_ID_IN_USE
                    || e.kind() == io.shardq.broker.ErrorKind.INVALID_ARGUMENT) {
                throw new InvalidClientIDException(e.getMessage(), e.kind().name());
            }
            throw Exceptions.translate(e);
        }
        clientId = clientID;
    }

    /** Token of the client id's row in shardq.client_id (unique across instances), or null. */
    private String clientIdToken;

    @Override
    public ConnectionMetaData getMetaData() throws JMSException {
        checkOpen();
        return new ShardQConnectionMetaData();
    }

    @Override
    public ExceptionListener getExceptionListener() throws JMSException {
        checkOpen();
        return exceptionListener;
    }

    @Override
    public void setExceptionListener(ExceptionListener listener) throws JMSException {
        checkOpen();
        clientIdFixed = true;
        this.exceptionListener = listener;
    }

    /** Database loss: tell the application's ExceptionListener, on a thread of its own. */
    /**
     * Tells the ExceptionListener, if any, on the connection's one notification thread (never on
     * the caller's: a listener that blocks must not stall delivery). Notifications beyond {@link
     * #MAX_PENDING_NOTIFICATIONS} waiting are dropped and logged.
     */
    void onException(JMSException e) {
        ExceptionListener l = exceptionListener;
        if (l == null || closed) {
            return;
        }
        try {
            notifier().execute(() -> {
                try {
                    l.onException(e);
                } catch (RuntimeException ex) {
                    LOG.warn("ExceptionListener threw {}", ex.toString());
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException ex) {
            LOG.warn("ExceptionListener not told (too many notifications waiting, or closed): {}", e.getMessage());
        }
    }

    static final int MAX_PENDING_NOTIFICATIONS = 1000;
    private java.util.concurrent.ThreadPoolExecutor notifier;

    private synchronized java.util.concurrent.ThreadPoolExecutor notifier() {
        if (notifier == null) {
            notifier = new java.util.concurrent.ThreadPoolExecutor(
                    1,
                    1,
                    0,
                    TimeUnit.MILLISECONDS,
                    new java.util.concurrent.ArrayBlockingQueue<>(MAX_PENDING_NOTIFICATIONS),
                    r -> {
                        Thread t = new Thread(r, "shardq-" + broker.instanceId() + "-exception-listener");
                        t.setDaemon(true);
                        return t;
                    });
        }
        return notifier;
    }

    private synchronized void stopNotifier() {
        if (notifier != null) {
            notifier.shutdown();
        }
    }

    @Override
    public void start() throws JMSException {
        checkOpen();
        clientIdFixed = true;
        synchronized (startLock) {
            started = true;
            startLock.notifyAll();
        }
        for (ShardQSession s : sessions) {
            s.connectionStarted();
        }
    }

    @Override
    public void stop() throws JMSException {
        checkOpen();
        // (a CompletionListener may stop its connection: JMS 3.1, 7.3.8 forbids it only close, commit, rollback)
        ThreadRules.checkNotInListener(this, "stop its own connection");
        synchronized (startLock) {
            started = false;
        }
        for (ShardQSession s : sessions) {
            s.awaitListenersIdle();
        }
    }

    boolean isStarted() {
        return started;
    }

    /** Waits until the connection is started, the deadline passes or it closes. */
    boolean awaitStarted(long deadlineNanos) throws InterruptedException {
        synchronized (startLock) {
            while (!started && !closed) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(startLock, Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
            }
            return started;
        }
    }

    @Override
    public void close() throws JMSException {
        if (closed) {
            return;
        }
        ThreadRules.checkNotInListener(this, "close its own connection");
        ThreadRules.checkNotInCompletion(this, "close its own connection");
        synchronized (startLock) {
            started = false;
            closed = true;
            startLock.notifyAll();
        }
        for (ShardQSession s : sessions) {
            s.close();
        }
        sessions.clear();
        temporaries.deleteAll();
        if (clientIdToken != null) {
            broker.releaseClientId(clientId, clientIdToken);
        }
        stopNotifier();
    }

    boolean isClosed() {
        return closed;
    }

    void checkOpen() throws IllegalStateException {
        if (closed) {
            throw Exceptions.closed("connection");
        }
        if (broker.isClosed()) {
            throw new IllegalStateException("the connection factory (ShardQ instance) of this connection is closed");
        }
    }

    @Override
    public ConnectionConsumer createConnectionConsumer(
            Destination destination, String messageSelector, ServerSessionPool sessionPool, int maxMessages)
            throws JMSException {
        throw new JMSException("connection consumers (application server facilities) are not supported by ShardQ");
    }

    @Override
    public ConnectionConsumer createConnectionConsumer(
            Queue queue, String messageSelector, ServerSessionPool sessionPool, int maxMessages) throws JMSException {
        return createConnectionConsumer((Destination) queue, messageSelector, sessionPool, maxMessages);
    }

    @Override
    public ConnectionConsumer createSharedConnectionConsumer(
            Topic topic,
            String subscriptionName,
            String messageSelector,
            ServerSessionPool sessionPool,
            int maxMessages)
            throws JMSException {
        checkOpen();
        checkTopicDomain("create a shared connection consumer");
        return createConnectionConsumer(topic, messageSelector, sessionPool, maxMessages);
    }

    @Override
    public ConnectionConsumer createDurableConnectionConsumer(
            Topic topic,
            String subscriptionName,
            String messageSelector,
            ServerSessionPool sessionPool,
            int maxMessages)
            throws JMSException {
        checkOpen();
        checkTopicDomain("create a durable connection consumer");
        return createConnectionConsumer(topic, messageSelector, sessionPool, maxMessages);
    }

    @Override
    public ConnectionConsumer createSharedDurableConnectionConsumer(
            Topic topic,
            String subscriptionName,
            String messageSelector,
            ServerSessionPool sessionPool,
            int maxMessages)
            throws JMSException {
        checkOpen();
        checkTopicDomain("create a shared durable connection consumer");
        return createConnectionConsumer(topic, messageSelector, sessionPool, maxMessages);
    }
}

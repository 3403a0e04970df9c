package io.shardq.jms;

import jakarta.jms.BytesMessage;
import jakarta.jms.ConnectionMetaData;
import jakarta.jms.Destination;
import jakarta.jms.ExceptionListener;
import jakarta.jms.IllegalStateRuntimeException;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSProducer;
import jakarta.jms.MapMessage;
import jakarta.jms.Message;
import jakarta.jms.ObjectMessage;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import jakarta.jms.Session;
import jakarta.jms.StreamMessage;
import jakarta.jms.TemporaryQueue;
import jakarta.jms.TemporaryTopic;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;
import java.io.Serializable;

/**
 * The simplified API, built on one {@link ShardQConnection} and one {@link ShardQSession} (not a
 * second path): every call delegates and turns JMSException into its unchecked twin. The
 * connection starts automatically when the first consumer is created, unless autoStart is off.
 */
class ShardQJMSContext implements JMSContext {
    private final ShardQConnection connection;
    private final int sessionMode;
    private final boolean ownsConnection;
    private ShardQSession session;
    private volatile boolean autoStart = true;
    private volatile boolean closed;

    ShardQJMSContext(ShardQConnection connection, int sessionMode, boolean ownsConnection) {
        this.connection = connection;
        this.sessionMode = sessionMode;
        this.ownsConnection = ownsConnection;
        if (sessionMode < Session.SESSION_TRANSACTED || sessionMode > Session.DUPS_OK_ACKNOWLEDGE) {
            throw new jakarta.jms.JMSRuntimeException("session mode " + sessionMode + " is invalid");
        }
    }

    interface Call<T> {
        T run() throws JMSException;
    }

    static <T> T unchecked(Call<T> call) {
        try {
            return call.run();
        } catch (JMSException e) {
            throw Exceptions.unchecked(e);
        }
    }

    synchronized ShardQSession session() {
        if (closed) {
            throw new IllegalStateRuntimeException("the JMSContext is closed");
        }
        if (session == null) {
            session = unchecked(this::openSession);
        }
        return session;
    }

    /** The context's session, made on first use. */
    ShardQSession openSession() throws JMSException {
        return (ShardQSession) connection.createSession(sessionMode);
    }

    ShardQConnection connection() {
        return connection;
    }

    @Override
    public JMSContext createContext(int sessionMode) {
        if (!ownsConnection) {
            throw new IllegalStateRuntimeException("createContext() is only allowed on a context made by a factory");
        }
        return new ShardQJMSContext(connection, sessionMode, false);
    }

    @Override
    public JMSProducer createProducer() {
        return new ShardQJMSProducer(
                this, unchecked(() -> (ShardQMessageProducer) session().createProducer(null)));
    }

    @Override
    public String getClientID() {
        return unchecked(connection::getClientID);
    }

    @Override
    public void setClientID(String clientID) {
        unchecked(() -> {
            connection.setClientID(clientID);
            return null;
        });
    }

    @Override
    public ConnectionMetaData getMetaData() {
        return unchecked(connection::getMetaData);
    }

    @Override
    public ExceptionListener getExceptionListener() {
        return unchecked(connection::getExceptionListener);
    }

    @Override
    public void setExceptionListener(ExceptionListener listener) {
        unchecked(() -> {
            connection.setExceptionListener(listener);
            return null;
        });
    }

    @Override
    public void start() {
        unchecked(() -> {
            connection.start();
            return null;
        });
    }

    @Override
    public void stop() {
        unchecked(() -> {
            connection.stop();
            return null;
        });
    }

    @Override
    public void setAutoStart(boolean autoStart) {
        this.autoStart = autoStart;
    }

    @Override
    public boolean getAutoStart() {
        return autoStart;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        unchecked(() -> {
            if (session != null) {
                session.close();
            }
            if (ownsConnection) {
                connection.close();
            }
            return null;
        });
        closed = true;
    }

    @Override
    public BytesMessage createBytesMessage() {
        return unchecked(() -> session().createBytesMessage());
    }

    @Override
    public MapMessage createMapMessage() {
        return unchecked(() -> session().createMapMessage());
    }

    @Override
    public Message createMessage() {
        return unchecked(() -> session().createMessage());
    }

    @Override
    public ObjectMessage createObjectMessage() {
        return unchecked(() -> session().createObjectMessage());
    }

    @Override
    public ObjectMessage createObjectMessage(Serializable object) {
        return unchecked(() -> session().createObjectMessage(object));
    }

    @Override
    public StreamMessage createStreamMessage() {
        return unchecked(() -> session().createStreamMessage());
    }

    @Override
    public TextMessage createTextMessage() {
        return unchecked(() -> session().createTextMessage());
    }

    @Override
    public TextMessage createTextMessage(String text) {
        return unchecked(() -> session().createTextMessage(text));
    }

    @Override
    public boolean getTransacted() {
        return sessionMode == Session.SESSION_TRANSACTED;
    }

    @Override
    public int getSessionMode() {
        return sessionMode;
    }

    @Override
    public void commit() {
        unchecked(() -> {
            session().commit();
            return null;
        });
    }

    @Override
    public void rollback() {
        unchecked(() -> {
            session().rollback();
            return null;
        });
    }

    @Override
    public void recover() {
        unchecked(() -> {
            session().recover();
            return null;
        });
    }

    private JMSConsumer consumer(Call<jakarta.jms.MessageConsumer> create) {
        ShardQMessageConsumer c = (ShardQMessageConsumer) unchecked(create);
        if (autoStart) {
            start();
        }
        return new ShardQJMSConsumer(c);
    }

    @Override
    public JMSConsumer createConsumer(Destination destination) {
        return consumer(() -> session().createConsumer(destination));
    }

    @Override
    public JMSConsumer createConsumer(Destination destination, String messageSelector) {
        return consumer(() -> session().createConsumer(destination, messageSelector));
    }

    @Override
    public JMSConsumer createConsumer(Destination destination, String messageSelector, boolean noLocal) {
        return consumer(() -> session().createConsumer(destination, messageSelector, noLocal));
    }

    @Override
    public Queue createQueue(String queueName) {
        return unchecked(() -> session().createQueue(queueName));
    }

    @Override
    public Topic createTopic(String topicName) {
        return unchecked(() -> session().createTopic(topicName));
    }

    @Override
    public JMSConsumer createDurableConsumer(Topic topic, String name) {
        return consumer(() -> session().createDurableConsumer(topic, name));
    }

    @Override
    public JMSConsumer createDurableConsumer(Topic topic, String name, String messageSelector, boolean noLocal) {
        return consumer(() -> session().createDurableConsumer(topic, name, messageSelector, noLocal));
    }

    @Override
    public JMSConsumer createSharedDurableConsumer(Topic topic, String name) {
        return consumer(() -> session().createSharedDurableConsumer(topic, name));
    }

    @Override
    public JMSConsumer createSharedDurableConsumer(Topic topic, String name, String messageSelector) {
        return consumer(() -> session().createSharedDurableConsumer(topic, name, messageSelector));
    }

    @Override
    public JMSConsumer createSharedConsumer(Topic topic, String sharedSubscriptionName) {
        return consumer(() -> session().createSharedConsumer(topic, sharedSubscriptionName));
    }

    @Override
    public JMSConsumer createSharedConsumer(Topic topic, String sharedSubscriptionName, String messageSelector) {
        return consumer(() -> session().createSharedConsumer(topic, sharedSubscriptionName, messageSelector));
    }

    @Override
    public QueueBrowser createBrowser(Queue queue) {
        return unchecked(() -> session().createBrowser(queue));
    }

    @Override
    public QueueBrowser createBrowser(Queue queue, String messageSelector) {
        return unchecked(() -> session().createBrowser(queue, messageSelector));
    }

    @Override
    public TemporaryQueue createTemporaryQueue() {
        return unchecked(() -> session().createTemporaryQueue());
    }

    @Override
    public TemporaryTopic createTemporaryTopic() {
        return unchecked(() -> session().createTemporaryTopic());
    }

    @Override
    public void unsubscribe(String name) {
        unchecked(() -> {
            session().unsubscribe(name);
            return null;
        });
    }

    @Override
    public void acknowledge() {
        if (sessionMode == Session.CLIENT_ACKNOWLEDGE) {
            unchecked(() -> {
                session().acknowledge();
                return null;
            });
        }
    }
}

package io.shardq.jms;

import jakarta.jms.JMSException;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Queue;
import jakarta.jms.QueueReceiver;
import jakarta.jms.QueueSender;
import jakarta.jms.QueueSession;
import jakarta.jms.TemporaryTopic;
import jakarta.jms.Topic;
import jakarta.jms.TopicSubscriber;

/**
 * The session {@code QueueConnection.createQueueSession} returns: queues only. As {@link
 * QueueSession}'s javadoc says, createTopic, createTemporaryTopic, createDurableSubscriber,
 * createDurableConsumer, createSharedConsumer, createSharedDurableConsumer and unsubscribe throw
 * {@link jakarta.jms.IllegalStateException}.
 */
public final class ShardQQueueSession extends DomainSession implements QueueSession {
    ShardQQueueSession(ShardQSession session) {
        super(session);
    }

    @Override
    String domainName() {
        return "QueueSession";
    }

    @Override
    public QueueReceiver createReceiver(Queue queue) throws JMSException {
        return session.createReceiver(queue);
    }

    @Override
    public QueueReceiver createReceiver(Queue queue, String messageSelector) throws JMSException {
        return session.createReceiver(queue, messageSelector);
    }

    @Override
    public QueueSender createSender(Queue queue) throws JMSException {
        return session.createSender(queue);
    }

    @Override
    public Topic createTopic(String topicName) throws JMSException {
        throw refused("createTopic");
    }

    @Override
    public TemporaryTopic createTemporaryTopic() throws JMSException {
        throw refused("createTemporaryTopic");
    }

    @Override
    public TopicSubscriber createDurableSubscriber(Topic topic, String name) throws JMSException {
        throw refused("createDurableSubscriber");
    }

    @Override
    public TopicSubscriber createDurableSubscriber(Topic topic, String name, String messageSelector, boolean noLocal)
            throws JMSException {
        throw refused("createDurableSubscriber");
    }

    @Override
    public MessageConsumer createDurableConsumer(Topic topic, String name) throws JMSException {
        throw refused("createDurableConsumer");
    }

    @Override
    public MessageConsumer createDurableConsumer(Topic topic, String name, String messageSelector, boolean noLocal)
            throws JMSException {
        throw refused("createDurableConsumer");
    }

    @Override
    public MessageConsumer createSharedConsumer(Topic topic, String sharedSubscriptionName) throws JMSException {
        throw refused("createSharedConsumer");
    }

    @Override
    public MessageConsumer createSharedConsumer(Topic topic, String sharedSubscriptionName, String messageSelector)
            throws JMSException {
        throw refused("createSharedConsumer");
    }

    @Override
    public MessageConsumer createSharedDurableConsumer(Topic topic, String name) throws JMSException {
        throw refused("createSharedDurableConsumer");
    }

    @Override
    public MessageConsumer createSharedDurableConsumer(Topic topic, String name, String messageSelector)
            throws JMSException {
        throw refused("createSharedDurableConsumer");
    }

    @Override
    public void unsubscribe(String name) throws JMSException {
        throw refused("unsubscribe");
    }
}

package io.shardq.jms;

import jakarta.jms.JMSException;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import jakarta.jms.TemporaryQueue;
import jakarta.jms.Topic;
import jakarta.jms.TopicPublisher;
import jakarta.jms.TopicSession;
import jakarta.jms.TopicSubscriber;

/**
 * The session {@code TopicConnection.createTopicSession} returns: topics only. As {@link
 * TopicSession}'s javadoc says, createQueue, createTemporaryQueue and createBrowser throw {@link
 * jakarta.jms.IllegalStateException}.
 */
public final class ShardQTopicSession extends DomainSession implements TopicSession {
    ShardQTopicSession(ShardQSession session) {
        super(session);
    }

    @Override
    String domainName() {
        return "TopicSession";
    }

    @Override
    public TopicSubscriber createSubscriber(Topic topic) throws JMSException {
        return session.createSubscriber(topic);
    }

    @Override
    public TopicSubscriber createSubscriber(Topic topic, String messageSelector, boolean noLocal) throws JMSException {
        return session.createSubscriber(topic, messageSelector, noLocal);
    }

    @Override
    public TopicPublisher createPublisher(Topic topic) throws JMSException {
        return session.createPublisher(topic);
    }

    @Override
    public Queue createQueue(String queueName) throws JMSException {
        throw refused("createQueue");
    }

    @Override
    public TemporaryQueue createTemporaryQueue() throws JMSException {
        throw refused("createTemporaryQueue");
    }

    @Override
    public QueueBrowser createBrowser(Queue queue) throws JMSException {
        throw refused("createBrowser");
    }

    @Override
    public QueueBrowser createBrowser(Queue queue, String messageSelector) throws JMSException {
        throw refused("createBrowser");
    }
}

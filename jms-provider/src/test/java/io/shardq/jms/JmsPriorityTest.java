package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.QueueOptions;
import io.shardq.broker.testing.PgTest;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSProducer;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Priority through JMS: a backlog sent with the producer's priority, the send's priority argument
 * and {@code JMSProducer#setPriority} reaches a consumer highest first, in send order within a
 * priority, and {@code JMSPriority} arrives as sent.
 */
@PgTest
class JmsPriorityTest extends JmsConnectionFixture {
    @Test
    void aBacklog_isReceivedHighestFirst_inSendOrderWithinAPriority() throws Exception {
        factory.broker().admin().queues().create("jms.prio", QueueOptions.DEFAULTS.withShards(2));
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = s.createQueue("jms.prio");
        MessageProducer p = s.createProducer(q);
        int[] priorities = {4, 0, 9, 4, 7, 1, 9, 4, 5, 0, 7, 3};
        for (int round = 0; round < 10; round++) {
            for (int i = 0; i < priorities.length; i++) {
                int priority = priorities[i];
                Message m = s.createTextMessage("r" + round + "i" + i);
                m.setIntProperty("round", round);
                if (i % 2 == 0) {
                    p.setPriority(priority);
                    p.send(m);
                } else {
                    p.send(m, DeliveryMode.PERSISTENT, priority, 0);
                }
            }
        }
        try (JMSContext ctx = factory.createContext(JMSContext.AUTO_ACKNOWLEDGE)) {
            JMSProducer jp = ctx.createProducer().setPriority(8);
            for (int round = 0; round < 3; round++) {
                jp.send(ctx.createQueue("jms.prio"), ctx.createTextMessage("ctx" + round));
            }
        }
        MessageConsumer c = s.createConsumer(q);
        List<Message> got = new ArrayList<>();
        for (int i = 0; i < 123; i++) {
            Message m = c.receive(30_000);
            assertThat(m).as("message %d", i).isNotNull();
            got.add(m);
        }
        assertThat(c.receiveNoWait()).isNull();
        List<Integer> seen = new ArrayList<>();
        for (Message m : got) {
            seen.add(m.getJMSPriority());
        }
        assertThat(seen).isSortedAccordingTo(Comparator.reverseOrder());
        assertThat(seen.stream().filter(x -> x == 8)).hasSize(3);
        // send order within a priority: the rounds of one priority arrive in order
        for (int priority = 0; priority <= 9; priority++) {
            int last = -1;
            for (Message m : got) {
                if (m.getJMSPriority() == priority && m.propertyExists("round")) {
                    assertThat(m.getIntProperty("round")).isGreaterThanOrEqualTo(last);
                    last = m.getIntProperty("round");
                }
            }
        }
    }
}

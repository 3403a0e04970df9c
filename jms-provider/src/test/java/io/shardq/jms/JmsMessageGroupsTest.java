package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.QueueOptions;
import io.shardq.broker.testing.PgTest;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Message groups through JMS: the JMSXGroupID a client sets routes its message to its group's
 * shard (one producer's messages spread over the shards by group, where without groups they stay
 * on its pinned shard), and JMSXGroupSeq arrives as sent, in order within each group.
 */
@PgTest
class JmsMessageGroupsTest extends JmsConnectionFixture {
    @Test
    void jmsxGroupId_routesByGroup_andGroupSeqArrivesInOrder() throws Exception {
        factory.broker().admin().queues().create("jms.groups", QueueOptions.DEFAULTS.withShards(8));
        factory.broker().admin().setDeliveryPolicy("jms.groups", null, null, null, true);
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = s.createQueue("jms.groups");
        MessageProducer p = s.createProducer(q);
        for (int seq = 1; seq <= 5; seq++) {
            for (int g = 0; g < 20; g++) {
                TextMessage m = s.createTextMessage("g" + g + ":" + seq);
                m.setStringProperty("JMSXGroupID", "order-" + g);
                m.setIntProperty("JMSXGroupSeq", seq);
                p.send(m);
            }
        }
        long shardsUsed = factory.broker().admin().queues().shards("jms.groups").stream()
                .filter(sh -> sh.backlog() > 0)
                .count();
        assertThat(shardsUsed).as("shards holding messages of 20 groups").isGreaterThan(1);

        MessageConsumer c = s.createConsumer(q);
        Map<String, Integer> lastSeq = new HashMap<>();
        for (int i = 0; i < 100; i++) {
            Message m = c.receive(30_000);
            assertThat(m).as("message %d", i).isNotNull();
            String group = m.getStringProperty("JMSXGroupID");
            int seq = m.getIntProperty("JMSXGroupSeq");
            assertThat(seq).as("%s", group).isEqualTo(lastSeq.getOrDefault(group, 0) + 1);
            lastSeq.put(group, seq);
        }
        assertThat(lastSeq).hasSize(20).allSatisfy((g, last) -> assertThat(last).isEqualTo(5));
    }
}

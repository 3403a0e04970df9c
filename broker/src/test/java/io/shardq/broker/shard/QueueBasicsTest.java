package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.ShardQException;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@PgTest
class QueueBasicsTest {
    Broker broker;
    TestDatabase db;

    @BeforeEach
    void start(TestDatabase db) {
        this.db = db;
        broker = Broker.start(
                db.brokerConfig().set(BrokerProperty.HEARTBEAT_MS, 200).build());
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    @Test
    void sendAndReceive_keepsOrder_andEmptiesTheQueue() {
        broker.admin()
                .queues()
                .create("basics.order", QueueOptions.DEFAULTS.withShards(2).withSliceSize(16));
        try (BrokerSession producer = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            for (int i = 0; i < 100; i++) {
                producer.send("basics.order", Messages.text("m" + i));
                if (i % 10 == 9) {
                    producer.commit();
                }
            }
        }
        List<String> got = new ArrayList<>();
        try (BrokerSession consumer = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            Delivery d;
            while ((d = consumer.receive("basics.order", 2000, false)) != null) {
                got.add(Messages.body(d.message()));
                assertThat(d.deliveryCount()).isEqualTo(1);
                if (got.size() % 7 == 0) {
                    consumer.commit();
                }
                if (got.size() == 100) {
                    break;
                }
            }
            consumer.commit();
        }
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            expected.add("m" + i);
        }
        assertThat(got).containsExactlyElementsOf(expected); // one producer, pinned to one shard
        assertThat(broker.admin().queues().backlog("basics.order")).isZero();
    }

    @Test
    void rollback_redelivers_withDeliveryCount() {
        broker.admin().queues().create("basics.rollback", QueueOptions.DEFAULTS.withShards(1));
        try (BrokerSession producer = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            producer.send("basics.rollback", Messages.text("again", Map.of("n", 7)));
        }
        try (BrokerSession consumer = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            Delivery first = consumer.receive("basics.rollback", 2000, false);
            assertThat(first.deliveryCount()).isEqualTo(1);
            consumer.rollback();
            Delivery second = consumer.receive("basics.rollback", 2000, false);
            assertThat(Messages.body(second.message())).isEqualTo("again");
            assertThat(second.message().properties()).containsEntry("n", 7);
            assertThat(second.deliveryCount()).isEqualTo(2);
            consumer.commit();
            assertThat(consumer.receive("basics.rollback", -1, false)).isNull();
        }
    }

    @Test
    void maxAttempts_movesToDeadLetterQueue_withReason() {
        broker.admin()
                .queues()
                .create("basics.dlq", QueueOptions.DEFAULTS.withShards(1).withMaxAttempts(2));
        try (BrokerSession producer = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            producer.send("basics.dlq", Messages.text("poison"));
            producer.send("basics.dlq", Messages.text("fine"));
        }
        try (BrokerSession consumer = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            for (int i = 0; i < 2; i++) {
                assertThat(Messages.body(
                                consumer.receive("basics.dlq", 2000, false).message()))
                        .isEqualTo("poison");
                consumer.rollback();
            }
            Delivery next = consumer.receive("basics.dlq", 2000, false);
            assertThat(Messages.body(next.message())).isEqualTo("fine");
            consumer.commit();
        }
        try (BrokerSession dlq = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            Delivery dead = dlq.receive("basics.dlq.DLQ", 2000, false);
            assertThat(Messages.body(dead.message())).isEqualTo("poison");
            assertThat((String) dead.message().properties().get(BrokerSession.DEAD_LETTER_REASON))
                    .contains("delivery failed 2 times");
            assertThat(dead.message().properties()).containsEntry(BrokerSession.ORIGINAL_DESTINATION, "basics.dlq");
        }
        assertThat(broker.admin().queues().backlog("basics.dlq")).isZero();
    }

    @Test
    void nonPersistent_isNeverWrittenToPostgres() throws Exception {
        broker.admin().queues().create("basics.np", QueueOptions.DEFAULTS.withShards(1));
        try (BrokerSession producer = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            producer.send("basics.np", Messages.nonPersistent("fleeting"));
        }
        assertThat(countRows("basics.np")).isZero();
        try (BrokerSession consumer = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            assertThat(Messages.body(consumer.receive("basics.np", 2000, false).message()))
                    .isEqualTo("fleeting");
        }
        try (BrokerSession producer = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            producer.send("basics.np", Messages.nonPersistent("lost on restart"));
        }
        broker.close();
        broker = Broker.start(db.brokerConfig().build());
        try (BrokerSession consumer = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            assertThat(consumer.receive("basics.np", 300, false)).isNull();
        }
        assertThat(countRows("basics.np")).isZero();
    }

    @Test
    void hostileName_isRefused_andNothingIsCreated() throws Exception {
        assertThatThrownBy(() -> broker.admin().queues().create("x\"; drop table y; --", QueueOptions.DEFAULTS))
                .isInstanceOf(ShardQException.class)
                .hasMessageContaining("is invalid: expected 1 to 64 characters");
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            assertThatThrownBy(() -> s.execute("select shardq.create_queue('x\"; drop table y; --')"))
                    .hasMessageContaining("is invalid");
            ResultSet rs = s.executeQuery("select count(*) from shardq.destination where name like 'x%'");
            rs.next();
            assertThat(rs.getInt(1)).isZero();
        }
    }

    @Test
    void unknownQueue_withAutoCreateOff_isRefused() {
        try (Broker strict = Broker.start(db.brokerConfig()
                .set(BrokerProperty.AUTO_CREATE_DESTINATIONS, false)
                .build())) {
            try (BrokerSession s = strict.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
                assertThatThrownBy(() -> s.send("basics.nowhere", Messages.text("x")))
                        .isInstanceOf(ShardQException.class)
                        .satisfies(
                                e -> assertThat(((ShardQException) e).kind()).isEqualTo(ErrorKind.UNKNOWN_DESTINATION))
                        .hasMessageContaining("\"basics.nowhere\" does not exist");
            }
        }
    }

    @Test
    void sqlFunctions_administerQueues() throws Exception {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("select shardq.create_queue('basics.sql', shards => 3)");
        }
        assertThat(broker.admin().require("basics.sql").shardCount()).isEqualTo(3);
        try (BrokerSession p = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            p.send("basics.sql", Messages.text("a"));
        }
        assertThatThrownBy(() -> broker.admin().queues().drop("basics.sql", false))
                .hasMessageContaining("is not empty: 1 message(s) waiting");
        assertThat(broker.admin().queues().purge("basics.sql")).isEqualTo(1);
        broker.admin().queues().drop("basics.sql", false);
        assertThat(broker.admin().list()).noneMatch(d -> d.name().equals("basics.sql"));
    }

    long countRows(String queue) throws Exception {
        int id = broker.admin().require(queue).id();
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select count(*) from shardq.m_" + id)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}

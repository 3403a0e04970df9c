package io.shardq.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.shard.BrokerConsumer;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** shardq.topics() and shardq.topic_shard_stats(topic), from SQL and through Admin. */
@PgTest
class TopicViewsTest {

    @Test
    void topicShardStats_namesTheSlowestSubscription_andCountsWhatItRetains(TestDatabase db) throws Exception {
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            broker.admin()
                    .topics()
                    .create("views.t", QueueOptions.DEFAULTS.withShards(2).withSliceSize(16));
            broker.admin().queues().create("views.q", QueueOptions.DEFAULTS.withShards(1));
            broker.admin().topics().addSubscriber("views.t", "fast", null);
            broker.admin().topics().addSubscriber("views.t", "slow", null);
            try (BrokerSession p = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                for (int i = 0; i < 40; i++) {
                    p.send("views.t", Messages.text("m" + i));
                }
                p.commit();
            }
            try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
                BrokerConsumer c = s.subscribe(
                        "views.t",
                        new SubscriptionSpec(SubscriptionSpec.Kind.SHARED_DURABLE, "fast", null, null, false, "c"));
                int n = 0;
                while (c.receive(300, false) != null) {
                    n++;
                }
                s.commit();
                assertThat(n).isEqualTo(40);
            }

            try (Connection c = db.connect();
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("select shard_no, next_seq, slowest_position, slowest_subscription,"
                            + " slowest_count, retained, oldest_retained_ms, slices_in_use"
                            + " from shardq.topic_shard_stats('views.t') where next_seq > 1")) {
                assertThat(rs.next()).isTrue(); // one publishing session: one shard
                assertThat(rs.getLong(2)).isEqualTo(41);
                assertThat(rs.getLong(3)).isZero();
                assertThat(rs.getString(4)).isEqualTo("slow");
                assertThat(rs.getLong(5)).isEqualTo(1);
                assertThat(rs.getLong(6)).isEqualTo(40);
                assertThat(rs.getLong(7)).isNotNegative();
                assertThat(rs.getLong(8)).isGreaterThanOrEqualTo(3); // 40 messages in slices of 16
                assertThat(rs.next()).isFalse();
            }
            TopicStats st = broker.admin().topics().stats("views.t");
            assertThat(st.shards()).hasSize(2);
            assertThat(st.published()).isEqualTo(40);
            assertThat(st.topic().retained()).isEqualTo(40);
            assertThat(st.topic().subscriptions()).isEqualTo(2);
            assertThat(st.oldestRetainedMillis()).isNotNull();
            assertThat(st.holdingRetirement()).singleElement().satisfies(h -> assertThat(h.name())
                    .isEqualTo("slow"));

            assertThat(broker.admin().topics().list())
                    .extracting(TopicInfo::name)
                    .containsExactly("views.t");
            broker.admin().topics().alter("views.t", null, null, null, null, 1000L, 3600L);
            TopicInfo t = broker.admin().topics().get("views.t");
            assertThat(t.maxLag()).isEqualTo(1000);
            assertThat(t.maxAgeSeconds()).isEqualTo(3600);

            assertThatThrownBy(() -> broker.admin().topics().stats("views.q"))
                    .isInstanceOfSatisfying(
                            ShardQException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT))
                    .hasMessage("\"views.q\" is a queue, not a topic");
            assertThatThrownBy(() -> broker.admin().topics().get("views.none"))
                    .isInstanceOfSatisfying(
                            ShardQException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.UNKNOWN_DESTINATION));
        }
    }
}

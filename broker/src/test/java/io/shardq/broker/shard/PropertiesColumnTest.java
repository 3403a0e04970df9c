package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.testing.Messages;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every stored message carries its properties, JMSCorrelationID and JMSType in the jsonb
 * {@code properties} column (V018, {@link io.shardq.broker.store.PropertiesJson}), on the fast
 * path (one reserving statement) and the slow one (a batch crossing a slice), and NULL when it
 * has none; PostgreSQL's selector translation then selects the rows the JVM's selector does.
 */
@PgTest
class PropertiesColumnTest {
    Broker broker;
    TestDatabase db;

    @BeforeEach
    void start(TestDatabase db) {
        this.db = db;
        broker = Broker.start(db.brokerConfig().build());
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    @Test
    void storedMessagesCarryTheirPropertiesAsJsonb_andNullWithout() throws Exception {
        broker.admin()
                .queues()
                .create("props.q", QueueOptions.DEFAULTS.withShards(1).withSliceSize(16));
        List<String> expected = new ArrayList<>();
        try (BrokerSession producer = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            for (int i = 0; i < 40; i++) {
                Map<String, Object> p = new LinkedHashMap<>();
                if (i % 4 != 0) {
                    p.put("n", i);
                    p.put("color", i % 2 == 0 ? "red" : "blue");
                    p.put("ratio", i / 4.0);
                    p.put("big", 1L << 40);
                    p.put("flag", i % 3 == 0);
                }
                BrokerMessage m = Messages.text("m" + i, p);
                producer.send("props.q", m);
                expected.add(
                        p.isEmpty()
                                ? null
                                : "{\"n\": " + i + ", \"big\": 1099511627776, \"flag\": " + (i % 3 == 0)
                                        + ", \"color\": \"" + (i % 2 == 0 ? "red" : "blue") + "\", \"ratio\": "
                                        + new java.math.BigDecimal(Double.toString(i / 4.0)).toPlainString() + "}");
                if (i % 13 == 12) {
                    producer.commit(); // batches of 13 cross the 16-message slices: both insert paths
                }
            }
            producer.commit();
        }
        int id = broker.admin().require("props.q").id();
        List<String> stored = new ArrayList<>();
        List<String> selected = new ArrayList<>();
        try (Connection c = db.connect()) {
            try (PreparedStatement ps =
                            c.prepareStatement("SELECT properties::text FROM shardq.m_" + id + " ORDER BY seq");
                    ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    stored.add(rs.getString(1));
                }
            }
            String sql;
            String literals;
            try (PreparedStatement ps = c.prepareStatement(
                            "SELECT sql, literal_values FROM shardq.selector_sql(?, 'm.properties', 'm.priority', 'l.v')");
                    ResultSet rs = query(ps, "color = 'red' AND ratio >= 2.5 AND NOT flag")) {
                rs.next();
                sql = rs.getString(1);
                literals = rs.getString(2);
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT m.seq FROM (SELECT ?::text[] AS v) l, shardq.m_" + id
                            + " m WHERE " + sql + " ORDER BY m.seq");
                    ResultSet rs = query(ps, literals)) {
                while (rs.next()) {
                    selected.add("m" + (rs.getLong(1) - 1));
                }
            }
        }
        assertThat(stored).containsExactlyElementsOf(expected);
        List<String> inJvm = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            if (i % 4 != 0 && i % 2 == 0 && i / 4.0 >= 2.5 && i % 3 != 0) {
                inJvm.add("m" + i);
            }
        }
        assertThat(selected).isNotEmpty().containsExactlyElementsOf(inJvm);
    }

    @Test
    void aPropertyPostgresqlCannotHold_marksTheRow_andTheJvmStillReadsItExactly() throws Exception {
        broker.admin().queues().create("props.nul", QueueOptions.DEFAULTS.withShards(1));
        Map<String, Object> nul = Map.of("text", "a\u0000b", "n", 1);
        Map<String, Object> nulOnly = Map.of("s", "x\u0000");
        try (BrokerSession producer = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            producer.send("props.nul", Messages.text("nul", nul));
            producer.send("props.nul", Messages.text("nul only", nulOnly));
            producer.send("props.nul", Messages.text("plain", Map.of("n", 3)));
        }
        int id = broker.admin().require("props.nul").id();
        List<String> stored = new ArrayList<>();
        try (Connection c = db.connect();
                PreparedStatement ps =
                        c.prepareStatement("SELECT properties::text FROM shardq.m_" + id + " ORDER BY seq");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                stored.add(rs.getString(1));
            }
        }
        assertThat(stored)
                .containsExactly(
                        "{\"JMS_ShardQ_Unrepresentable\": true}",
                        "{\"JMS_ShardQ_Unrepresentable\": true}",
                        "{\"n\": 3}");
        try (BrokerSession consumer = broker.openSession(BrokerSession.Mode.AUTO_ACKNOWLEDGE)) {
            assertThat(consumer.receive("props.nul", 5000, false).message().properties())
                    .isEqualTo(nul);
            assertThat(consumer.receive("props.nul", 5000, false).message().properties())
                    .isEqualTo(nulOnly);
        }
    }

    private static ResultSet query(PreparedStatement ps, String parameter) throws Exception {
        ps.setString(1, parameter);
        return ps.executeQuery();
    }
}

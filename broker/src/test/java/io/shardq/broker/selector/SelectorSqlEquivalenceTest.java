package io.shardq.broker.selector;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.ShardQException;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.store.PropertiesJson;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import io.shardq.sql.Migrations;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * One selector grammar, two evaluators: artemis-selector in the JVM and {@code
 * shardq.selector_sql}'s translation in PostgreSQL over the {@code properties} column ({@link
 * PropertiesJson}). Generated selectors (comparisons, =, <>, LIKE with ESCAPE, IN, BETWEEN, IS
 * NULL, NOT/AND/OR, arithmetic, header fields, boolean properties) over generated messages
 * (properties of every type, missing ones, NaN and infinities): both must accept or refuse the
 * same selectors, and give the same three-valued result (TRUE, FALSE, unknown) for every pair
 * whose evaluation the JVM completes. Where the JVM's evaluation fails (arithmetic on a string or
 * a boolean: artemis-selector throws and the message is not selected), PostgreSQL's operand is
 * unknown instead; those pairs are counted and must not be selected in PostgreSQL unless an OR
 * makes them so.
 */
@PgTest
class SelectorSqlEquivalenceTest {
    private static final String[] STRINGS = {
        "", "a", "b", "ab", "a_b", "a%b", "abc", "A", "x\\y", "10", "true", "é", "it's"
    };
    private static final double[] DOUBLES = {
        -2.5,
        -1.0,
        -0.5,
        0.0,
        0.25,
        0.5,
        1.0,
        1.5,
        2.0,
        3.0,
        0.1,
        0.2,
        0.3,
        1e10,
        1.5e-5,
        12345.678,
        Double.NaN,
        Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY
    };
    private static final float[] FLOATS = {0.5f, 0.1f, 1.0f, -2.0f, 3.5f};

    private final Random random = new Random(Long.getLong("shardq.test.seed", 20261128L));

    @Test
    void postgresqlEvaluatesEverySelectorAsArtemisSelectorDoes(TestDatabase db) throws Exception {
        Migrations.migrate(db.dataSource());
        List<BrokerMessage> messages = new ArrayList<>();
        for (int i = 0; i < 150; i++) {
            messages.add(message());
        }
        String[] properties = messages.stream().map(PropertiesJson::encode).toArray(String[]::new);
        Integer[] priorities = messages.stream().map(BrokerMessage::priority).toArray(Integer[]::new);
        int pairs = 0;
        int known = 0;
        int unknown = 0;
        int failedInJvm = 0;
        int refused = 0;
        List<String> differences = new ArrayList<>();
        try (Connection c = db.connect()) {
            for (int s = 0; s < 120; s++) {
                String selector = condition(3);
                Selector compiled;
                try {
                    compiled = Selector.compile(selector);
                } catch (ShardQException e) {
                    refused++;
                    assertThat(translate(c, selector))
                            .as("PostgreSQL refuses %s as the JVM does", selector)
                            .isNull();
                    continue;
                }
                String[] translation = translate(c, selector);
                assertThat(translation).as("PostgreSQL translates %s", selector).isNotNull();
                Boolean[] inSql = evaluate(c, translation, properties, priorities);
                for (int m = 0; m < messages.size(); m++) {
                    pairs++;
                    Boolean inJvm;
                    try {
                        inJvm = compiled.evaluate(messages.get(m));
                    } catch (IllegalStateException e) {
                        failedInJvm++;
                        continue;
                    }
                    if (inJvm == null) {
                        unknown++;
                    } else {
                        known++;
                    }
                    if (inJvm != inSql[m] && (inJvm == null || !inJvm.equals(inSql[m]))) {
                        differences.add(selector + " on " + properties[m] + " priority " + priorities[m] + ": JVM "
                                + inJvm + ", PostgreSQL " + inSql[m] + " (" + translation[0] + ")");
                    }
                }
            }
        }
        System.out.printf(
                "selector equivalence: %d pairs, %d known, %d unknown, %d failed in the JVM; %d selectors refused by both%n",
                pairs, known, unknown, failedInJvm, refused);
        assertThat(differences).as("pairs evaluated differently").isEmpty();
        assertThat(known + unknown).as("pairs compared").isGreaterThanOrEqualTo(10_000);
        assertThat(unknown).as("pairs whose result is unknown").isGreaterThan(500);
    }

    @Test
    void postgresqlRefusesTheSelectorsArtemisSelectorRefuses(TestDatabase db) throws Exception {
        Migrations.migrate(db.dataSource());
        String[] invalid = {
            "a = ",
            "5",
            "a + 1",
            "a < 'x'",
            "'x' >= a",
            "TRUE = 1",
            "a = NULL",
            "NULL = a",
            "a < TRUE",
            "(a = 1) < 2",
            "1 + 2 IN ('a')",
            "a IN (1, 2)",
            "a IN ()",
            "a LIKE 'x' ESCAPE 'ab'",
            "a LIKE b",
            "XPATH '//x'",
            "a # 1",
            "a = 'unterminated",
            "a = 1 b = 2",
            "a NOT = 1",
            "a IS 1",
            "a BETWEEN 1",
            "NOT",
            "(a = 1",
            "a = 1)",
            "a.b = 1"
        };
        try (Connection c = db.connect()) {
            for (String selector : invalid) {
                assertThat(refusedByJvm(selector))
                        .as("the JVM refuses %s", selector)
                        .isTrue();
                assertThat(translate(c, selector))
                        .as("PostgreSQL refuses %s", selector)
                        .isNull();
            }
        }
    }

    private static boolean refusedByJvm(String selector) {
        try {
            Selector.compile(selector);
            return false;
        } catch (ShardQException e) {
            return true;
        }
    }

    /** The translation (sql, literals joined), or null when PostgreSQL refuses the selector. */
    private static String[] translate(Connection c, String selector) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT sql, literal_values FROM shardq.selector_sql(?, 'm.properties', 'm.priority', 'l.v')")) {
            ps.setString(1, selector);
            c.setAutoCommit(false);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                String[] r = {rs.getString(1), null};
                c.commit();
                return new String[] {r[0], rs.getString(2)};
            } catch (SQLException e) {
                c.rollback();
                assertThat(e.getSQLState())
                        .as("refusal of %s: %s", selector, e.getMessage())
                        .isEqualTo("42601");
                assertThat(e.getMessage()).contains("is invalid");
                return null;
            } finally {
                c.setAutoCommit(true);
            }
        }
    }

    private static Boolean[] evaluate(Connection c, String[] translation, String[] properties, Integer[] priorities)
            throws SQLException {
        // the translation is SQL text built by shardq.selector_sql, every literal of the selector in l.v
        String sql = "SELECT (" + translation[0] + ") FROM (SELECT ?::text[] AS v) l,"
                + " unnest(?::jsonb[], ?::integer[]) WITH ORDINALITY AS m (properties, priority, n) ORDER BY m.n";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, translation[1]);
            ps.setArray(2, c.createArrayOf("jsonb", properties));
            ps.setArray(3, c.createArrayOf("integer", priorities));
            Boolean[] out = new Boolean[properties.length];
            try (ResultSet rs = ps.executeQuery()) {
                for (int i = 0; i < out.length; i++) {
                    rs.next();
                    boolean b = rs.getBoolean(1);
                    out[i] = rs.wasNull() ? null : b;
                }
            }
            return out;
        }
    }

    private BrokerMessage message() {
        Map<String, Object> p = new LinkedHashMap<>();
        maybe(p, "i1", random.nextInt(11) - 5);
        maybe(p, "i2", random.nextInt(5));
        maybe(p, "l1", random.nextInt(4) == 0 ? 1L << 40 : (long) (random.nextInt(11) - 5));
        maybe(p, "d1", DOUBLES[random.nextInt(DOUBLES.length)]);
        maybe(p, "d2", DOUBLES[random.nextInt(DOUBLES.length)]);
        maybe(p, "f1", FLOATS[random.nextInt(FLOATS.length)]);
        maybe(p, "s1", STRINGS[random.nextInt(STRINGS.length)]);
        maybe(p, "s2", STRINGS[random.nextInt(STRINGS.length)]);
        maybe(p, "b1", random.nextBoolean());
        maybe(p, "x", anyValue());
        maybe(p, "y", anyValue());
        String correlation = random.nextInt(3) == 0 ? STRINGS[random.nextInt(STRINGS.length)] : null;
        String type = random.nextInt(3) == 0 ? STRINGS[random.nextInt(STRINGS.length)] : null;
        return new BrokerMessage(
                "ID:test",
                BrokerMessage.BodyType.TEXT,
                1L,
                correlation,
                type,
                null,
                random.nextInt(10),
                0,
                0,
                true,
                p,
                null);
    }

    private Object anyValue() {
        return switch (random.nextInt(7)) {
            case 0 -> random.nextInt(7) - 3;
            case 1 -> (long) random.nextInt(7) - 3;
            case 2 -> DOUBLES[random.nextInt(DOUBLES.length)];
            case 3 -> FLOATS[random.nextInt(FLOATS.length)];
            case 4 -> random.nextBoolean();
            default -> STRINGS[random.nextInt(STRINGS.length)];
        };
    }

    private void maybe(Map<String, Object> p, String name, Object value) {
        if (random.nextInt(4) != 0) {
            p.put(name, value);
        }
    }

    private static final String[] ANY = {
        "i1", "i2", "l1", "d1", "d2", "f1", "s1", "s2", "b1", "x", "y", "JMSType", "JMSCorrelationID"
    };
    private static final String[] NUMERIC = {"i1", "i2", "l1", "d1", "d2", "f1", "x", "JMSPriority"};
    private static final String[] TEXT = {"s1", "s2", "x", "JMSType", "JMSCorrelationID", "JMSDeliveryMode"};

    private String pick(String[] names) {
        return names[random.nextInt(names.length)];
    }

    private String condition(int depth) {
        int choice = random.nextInt(depth <= 0 ? 9 : 13);
        return switch (choice) {
            case 0 -> value(2) + " " + pick(new String[] {"<", "<=", ">", ">="}) + " " + value(2);
            case 1 -> value(2) + (random.nextBoolean() ? " = " : " <> ") + equalityOperand();
            case 2 -> pick(TEXT) + (random.nextBoolean() ? " NOT" : "") + " LIKE " + likePattern();
            case 3 ->
                pick(random.nextBoolean() ? TEXT : ANY) + (random.nextBoolean() ? " NOT" : "") + " IN (" + stringList()
                        + ")";
            case 4 -> value(1) + (random.nextBoolean() ? " NOT" : "") + " BETWEEN " + number() + " AND " + number();
            case 5 -> pick(ANY) + (random.nextBoolean() ? " IS NULL" : " IS NOT NULL");
            case 6 -> random.nextBoolean() ? "b1" : "x";
            case 7 -> random.nextInt(4) == 0 ? pick(new String[] {"TRUE", "FALSE"}) : pick(ANY) + " = " + pick(ANY);
            case 8 -> "(" + value(1) + " = " + value(1) + ")";
            case 9 -> "NOT " + parenthesised(depth - 1);
            case 10, 11 -> parenthesised(depth - 1) + " AND " + parenthesised(depth - 1);
            default -> parenthesised(depth - 1) + " OR " + parenthesised(depth - 1);
        };
    }

    private String parenthesised(int depth) {
        String c = condition(depth);
        return random.nextInt(3) == 0 ? c : "(" + c + ")";
    }

    private String equalityOperand() {
        return switch (random.nextInt(5)) {
            case 0 -> quote(STRINGS[random.nextInt(STRINGS.length)]);
            case 1 -> pick(new String[] {"TRUE", "FALSE"});
            case 2 -> pick(ANY);
            default -> value(2);
        };
    }

    private String value(int depth) {
        int choice = random.nextInt(depth <= 0 ? 3 : 6);
        return switch (choice) {
            case 0 -> pick(NUMERIC);
            case 1 -> number();
            case 2 -> pick(random.nextBoolean() ? NUMERIC : ANY);
            case 3 -> value(depth - 1) + " " + pick(new String[] {"+", "-", "*", "/", "%"}) + " " + value(depth - 1);
            case 4 -> "-" + value(depth - 1);
            default -> "(" + value(depth - 1) + " " + pick(new String[] {"+", "-", "*"}) + " " + value(depth - 1) + ")";
        };
    }

    private String number() {
        return switch (random.nextInt(6)) {
            case 0 -> Integer.toString(random.nextInt(7) - 3).replace("-", "- ");
            case 1 -> Integer.toString(random.nextInt(10));
            case 2 -> pick(new String[] {"0.5", "1.0", "2.5", "0.1", "1e1", "1.5E-5", ".25", "3.", "1E400"});
            case 3 -> pick(new String[] {"0x10", "010", "0", "10L", "1099511627776"});
            case 4 -> Integer.toString(random.nextInt(3));
            default ->
                Double.toString(DOUBLES[random.nextInt(DOUBLES.length - 3)]).replace("-", "- ");
        };
    }

    private String likePattern() {
        String p = pick(new String[] {
            "'a%'",
            "'%b'",
            "'a_b'",
            "'_'",
            "'%'",
            "''",
            "'a!_b' ESCAPE '!'",
            "'a!%b' ESCAPE '!'",
            "'x\\y'",
            "'x\\_y'",
            "'%!'' ESCAPE '!'",
            "'A%'",
            "'é'",
            "'%''s'",
            "'1_'"
        });
        return p;
    }

    private String stringList() {
        int n = 1 + random.nextInt(6);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : ", ").append(quote(STRINGS[random.nextInt(STRINGS.length)]));
        }
        return b.toString();
    }

    private static String quote(String s) {
        return "'" + s.replace("'", "''") + "'";
    }
}

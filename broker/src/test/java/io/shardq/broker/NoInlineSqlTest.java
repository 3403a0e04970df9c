package io.shardq.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The engine's SQL lives in the named files under {@code io/shardq/broker/sql/} (one per table or
 * concern, names checked at compile time through the generated {@code Query} enum), never in Java
 * string literals: a statement is found by its name, reviewed beside the others on its table, and
 * PREPAREd by {@link QueriesTest}. This test reads every main source file of the engine and fails
 * on a string literal that starts a statement, or a literal handed straight to JDBC.
 */
class NoInlineSqlTest {
    /** A literal that starts a statement (case-insensitive), as the engine's statements begin. */
    private static final Pattern STATEMENT =
            Pattern.compile("(?i)^\\s*(select\\s|insert\\s+into\\s|update\\s+\\S+\\s+set\\s"
                    + "|delete\\s+from\\s|with\\s+\\w+\\s+as\\s*\\(|with\\s*$|lock\\s+table\\s|listen\\s|unlisten\\s|notify\\s"
                    + "|vacuum\\b|analyze\\s|truncate\\s|prepare\\s+transaction|commit\\s+prepared|rollback\\s+prepared"
                    + "|set\\s+(local\\s+)?\\w+\\s*(=|\\bto\\b)|reset\\s+\\w+|create\\s+(table|index|function|or)\\s"
                    + "|drop\\s+(table|index|function)\\s|alter\\s+(table|function)\\s)");

    /** A literal passed directly to a JDBC method that runs or prepares SQL. */
    private static final Pattern JDBC_LITERAL =
            Pattern.compile("\\.(prepareStatement|prepareCall|execute|executeQuery|executeUpdate|addBatch)\\(\\s*\"");

    private static final Pattern LITERAL = Pattern.compile("\"((?:[^\"\\\\\\n]|\\\\.)*)\"");

    @Test
    void theEnginesMainSources_holdNoSqlStatement() throws IOException {
        Path main = Path.of("src/main/java");
        assertThat(main).isDirectory();
        List<String> found = new ArrayList<>();
        int files = 0;
        try (Stream<Path> s = Files.walk(main)) {
            for (Path f : s.filter(p -> p.toString().endsWith(".java")).toList()) {
                files++;
                for (String hit : inlineSql(Files.readString(f))) {
                    found.add(main.relativize(f) + ": " + hit);
                }
            }
        }
        assertThat(files).as("the engine's sources were read").isGreaterThan(50);
        assertThat(found)
                .as("inline SQL: move each statement into a named file under src/main/resources/io/shardq/broker/sql/")
                .isEmpty();
    }

    @Test
    void theCheck_findsStatementsInLiterals_andNotInCommentsOrProse() {
        String source = String.join(
                "\n",
                "class X {",
                "  // select id from shardq.instance: a comment is not a statement",
                "  /** Reads with select ... from shardq.destination. */",
                "  void a(Connection c) throws Exception {",
                "    c.prepareStatement(\"select 1 from shardq.instance where id = ?\");",
                "    s.execute(\"LISTEN \" + channel);",
                "    String q = \"UPDATE shardq.cursor SET lease_until = now()\"",
                "        + \" where shard_no = ?\";",
                "    s.execute(sqlHeldElsewhere);",
                "    c.prepareStatement(\"\" + x);",
                "    s.execute(\"set local lock_timeout = \" + n);",
                "    StringBuilder b = new StringBuilder(\"WITH \");",
                "    throw new IllegalStateException(\"create a queue with the default settings first\");",
                "    log(\"select a destination to drop\");",
                "  }",
                "}");
        List<String> hits = inlineSql(source);
        assertThat(hits)
                .containsExactly(
                        "line 5: select 1 from shardq.instance where id = ?",
                        "line 6: LISTEN ",
                        "line 7: UPDATE shardq.cursor SET lease_until = now()",
                        "line 10: a literal handed to JDBC",
                        "line 11: set local lock_timeout = ",
                        "line 12: WITH ");
    }

    /** The statements in {@code source}'s string literals, comments left out, as "line N: text". */
    static List<String> inlineSql(String source) {
        List<String> out = new ArrayList<>();
        String[] lines = source.split("\n", -1);
        boolean inBlockComment = false;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            String code = line;
            if (inBlockComment) {
                int end = code.indexOf("*/");
                if (end < 0) {
                    continue;
                }
                code = code.substring(end + 2);
                inBlockComment = false;
            }
            String trimmed = code.strip();
            if (trimmed.startsWith("//") || trimmed.startsWith("*")) {
                continue;
            }
            int open = code.indexOf("/*");
            if (open >= 0 && !insideLiteral(code, open)) {
                int close = code.indexOf("*/", open + 2);
                if (close < 0) {
                    inBlockComment = true;
                    code = code.substring(0, open);
                } else {
                    code = code.substring(0, open) + code.substring(close + 2);
                }
            }
            boolean reported = false;
            Matcher m = LITERAL.matcher(code);
            while (m.find()) {
                String text = m.group(1);
                if (STATEMENT.matcher(text).find() && isStatement(text)) {
                    out.add("line " + (i + 1) + ": " + text);
                    reported = true;
                }
            }
            if (!reported && JDBC_LITERAL.matcher(code).find()) {
                out.add("line " + (i + 1) + ": a literal handed to JDBC");
            }
        }
        return out;
    }

    /**
     * A statement rather than prose: "select" and "with" must be followed by SQL (a select list,
     * a table, a function, a parameter), not by English words only.
     */
    private static boolean isStatement(String text) {
        String t = text.strip().toLowerCase(java.util.Locale.ROOT);
        if (t.startsWith("select")) {
            return t.equals("select")
                    || t.matches("select\\s+\\d.*")
                    || t.contains(" from ")
                    || t.contains("(")
                    || t.contains("?")
                    || t.contains("*")
                    || t.contains(",");
        }
        return true;
    }

    private static boolean insideLiteral(String code, int index) {
        boolean in = false;
        for (int i = 0; i < index; i++) {
            char ch = code.charAt(i);
            if (ch == '\\' && in) {
                i++;
            } else if (ch == '"') {
                in = !in;
            }
        }
        return in;
    }
}

package io.shardq.broker.selector;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.message.Texts;
import org.apache.activemq.artemis.api.core.SimpleString;
import org.apache.activemq.artemis.selector.filter.BinaryExpression;
import org.apache.activemq.artemis.selector.filter.BooleanExpression;
import org.apache.activemq.artemis.selector.filter.Expression;
import org.apache.activemq.artemis.selector.filter.FilterException;
import org.apache.activemq.artemis.selector.filter.Filterable;
import org.apache.activemq.artemis.selector.filter.UnaryExpression;
import org.apache.activemq.artemis.selector.filter.XPathExpression;
import org.apache.activemq.artemis.selector.filter.XQueryExpression;
import org.apache.activemq.artemis.selector.impl.SelectorParser;

/**
 * A compiled JMS message selector (SQL-92 subset of the JMS spec), evaluated against a {@link
 * BrokerMessage}. Parsing and evaluation are ActiveMQ Artemis's selector library: a well-kept,
 * spec-conformant implementation rather than a hand-written parser.
 *
 * <p>Header fields a selector may name: JMSDeliveryMode ('PERSISTENT'/'NON_PERSISTENT'),
 * JMSPriority, JMSMessageID, JMSTimestamp, JMSCorrelationID, JMSType; anything else is a
 * property.
 */
public final class Selector {
    private final String text;
    private final BooleanExpression expression;

    private Selector(String text, BooleanExpression expression) {
        this.text = text;
        this.expression = expression;
    }

    /** Longest selector text accepted, in characters. */
    public static final int MAX_LENGTH = 16_384;
    /** Deepest nesting of operators accepted (evaluation recurses once per level). */
    public static final int MAX_DEPTH = 200;
    /** Characters of a selector quoted in an error message. */
    static final int QUOTE = 120;

    /**
     * Compiles a selector; null or blank means "every message" and returns null. Refuses, with
     * {@link ErrorKind#INVALID_SELECTOR}, text that does not parse, is longer than {@link
     * #MAX_LENGTH}, nests deeper than {@link #MAX_DEPTH}, or uses Artemis' XPATH/XQUERY extensions
     * (not JMS). Error messages quote the selector cut to a bounded length.
     */
    public static Selector compile(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        if (text.length() > MAX_LENGTH) {
            throw invalid(
                    text, "it is " + text.length() + " characters long, at most " + MAX_LENGTH + " are accepted", null);
        }
        BooleanExpression parsed;
        try {
            parsed = SelectorParser.parse(text);
        } catch (FilterException | RuntimeException e) {
            throw invalid(text, Texts.cut(why(e), QUOTE), e);
        } catch (StackOverflowError e) {
            throw invalid(text, "it is nested too deeply", null);
        }
        check(text, parsed);
        return new Selector(text, parsed);
    }

    /** "line 1, column 10.  Encountered: =" in the messages of Artemis' (JavaCC) parser and lexer. */
    private static final java.util.regex.Pattern WHERE = java.util.regex.Pattern.compile(
            "(Parse|Lexical) error at line (\\d+), column (\\d+)\\.\\s+Encountered: (.*)",
            java.util.regex.Pattern.DOTALL);

    /**
     * Where the text stops parsing and what is found there: Artemis' FilterException carries the
     * selector itself as its message, its cause (JavaCC's ParseException or TokenMgrError) the
     * position. "unexpected "=" at position 10".
     */
    static String why(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            java.util.regex.Matcher m = WHERE.matcher(String.valueOf(t.getMessage()));
            if (!m.find()) {
                continue;
            }
            String at = m.group(2).equals("1")
                    ? "position " + m.group(3)
                    : "line " + m.group(2) + ", position " + m.group(3);
            String found = m.group(4).strip().lines().findFirst().orElse("").strip();
            if (m.group(1).equals("Lexical")) {
                java.util.regex.Matcher after = java.util.regex.Pattern.compile("<EOF> after prefix \"(.*)\"")
                        .matcher(found);
                if (after.find()) {
                    String prefix = after.group(1).replace("\\'", "'");
                    return "the selector ends inside " + prefix + " (a string without its closing quote?), at " + at;
                }
                java.util.regex.Matcher ch =
                        java.util.regex.Pattern.compile("^('.*?') \\(\\d+\\)").matcher(found);
                return "unexpected character " + (ch.find() ? ch.group(1) : found) + " at " + at;
            }
            if (found.startsWith("<EOF>")) {
                return "the selector ends too early, at " + at;
            }
            return "unexpected \"" + found + "\" at " + at;
        }
        return String.valueOf(e.getMessage());
    }

    /** Walks the expression (without recursion): depth and extensions. */
    private static void check(String text, Expression root) {
        java.util.ArrayDeque<Object[]> stack = new java.util.ArrayDeque<>();
        stack.push(new Object[] {root, 1});
        while (!stack.isEmpty()) {
            Object[] top = stack.pop();
            Expression e = (Expression) top[0];
            int depth = (Integer) top[1];
            if (depth > MAX_DEPTH) {
                throw invalid(text, "it nests operators more than " + MAX_DEPTH + " deep", null);
            }
            if (e instanceof XPathExpression || e instanceof XQueryExpression) {
                throw invalid(text, "XPATH and XQUERY are not part of JMS message selectors", null);
            }
            if (e instanceof BinaryExpression b) {
                stack.push(new Object[] {b.getLeft(), depth + 1});
                stack.push(new Object[] {b.getRight(), depth + 1});
            } else if (e instanceof UnaryExpression u) {
                stack.push(new Object[] {u.getRight(), depth + 1});
            }
        }
    }

    private static ShardQException invalid(String text, String why, Throwable cause) {
        return new ShardQException(
                ErrorKind.INVALID_SELECTOR, "selector \"" + Texts.cut(text, QUOTE) + "\" is invalid: " + why, cause);
    }

    public String text() {
        return text;
    }

    /**
     * True when the message is selected. A selector that cannot be evaluated for a message (a
     * type error such as arithmetic on a boolean property) does not select it: the message stays
     * for other consumers, as SQL's "unknown" does.
     */
    public boolean matches(BrokerMessage m) {
        try {
            return expression.matches(new View(m));
        } catch (FilterException | RuntimeException | StackOverflowError e) {
            return false;
        }
    }

    /**
     * The selector's three-valued result for a message: TRUE, FALSE or null (unknown), as
     * artemis-selector evaluates it; an evaluation that fails (arithmetic on a string) throws
     * {@link IllegalStateException}. For comparing evaluations (the SQL translation's tests);
     * delivery uses {@link #matches}.
     */
    public Boolean evaluate(BrokerMessage m) {
        try {
            return (Boolean) expression.evaluate(new View(m));
        } catch (FilterException | RuntimeException e) {
            throw new IllegalStateException("selector \"" + Texts.cut(text, QUOTE) + "\" failed: " + e, e);
        }
    }

    private record View(BrokerMessage m) implements Filterable {
        @Override
        public <T> T getBodyAs(Class<T> type) {
            return null;
        }

        @Override
        public Object getProperty(SimpleString name) {
            Object v =
                    switch (name.toString()) {
                        case "JMSDeliveryMode" -> m.persistent() ? "PERSISTENT" : "NON_PERSISTENT";
                        case "JMSPriority" -> m.priority();
                        case "JMSMessageID" -> m.messageId();
                        case "JMSTimestamp" -> m.timestamp();
                        case "JMSCorrelationID" -> m.correlationId();
                        case "JMSType" -> m.type();
                        default -> m.properties().get(name.toString());
                    };
            return v;
        }

        @Override
        public Object getLocalConnectionId() {
            return null;
        }
    }
}

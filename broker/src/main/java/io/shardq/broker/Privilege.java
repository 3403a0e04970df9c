package io.shardq.broker;

import java.util.Locale;

/**
 * What a PostgreSQL role may do with a destination. Each is a table privilege on the destination's
 * message table {@code shardq.m_<id>}, granted by {@code shardq.grant} (or {@link GrantAdmin#grant}):
 * see docs/design/faults.md, "Authorization".
 */
public enum Privilege {
    /** Send messages to it (INSERT). */
    SEND,
    /** Receive (consume) its messages; includes browsing (SELECT and DELETE). */
    RECEIVE,
    /** Read its messages without consuming them: a JMS QueueBrowser, a SELECT in psql (SELECT). */
    BROWSE,
    /** Purge, start, stop it and grant or revoke its privileges (TRUNCATE). */
    ADMINISTER;

    /** The name used in SQL and on the command line: {@code send}, {@code receive}, ... */
    public String sqlName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses {@link #sqlName()} (any case); anything else is {@link ErrorKind#INVALID_ARGUMENT}. */
    public static Privilege parse(String name) {
        if (name != null) {
            for (Privilege p : values()) {
                if (p.sqlName().equalsIgnoreCase(name)) {
                    return p;
                }
            }
        }
        throw new ShardQException(
                ErrorKind.INVALID_ARGUMENT,
                "privilege \"" + io.shardq.broker.message.Texts.cut(String.valueOf(name), 120)
                        + "\" is invalid: expected send, receive, browse or administer");
    }
}

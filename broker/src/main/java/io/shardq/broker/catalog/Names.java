package io.shardq.broker.catalog;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import java.util.regex.Pattern;

/** Validation of user-supplied names, with messages that say what is allowed. */
public final class Names {
    /** Same rule as shardq.check_name in SQL and the CHECK on shardq.destination.name. */
    public static final Pattern DESTINATION = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");

    private Names() {}

    public static String checkDestination(String name) {
        if (name == null || !DESTINATION.matcher(name).matches()) {
            throw new ShardQException(
                    ErrorKind.INVALID_NAME,
                    "destination name \"" + (name == null ? null : io.shardq.broker.message.Texts.cut(name, 120))
                            + "\" is invalid: expected 1 to 64 characters from"
                            + " [A-Za-z0-9_.-], starting with a letter or digit");
        }
        return name;
    }

    /** A key/value cache's name: the destination rule (same as shardq.check_cache_name). */
    public static String checkCache(String name) {
        if (name == null || !DESTINATION.matcher(name).matches()) {
            throw new ShardQException(
                    ErrorKind.INVALID_NAME,
                    "cache name \"" + (name == null ? null : io.shardq.broker.message.Texts.cut(name, 120))
                            + "\" is invalid: expected 1 to 64 characters from [A-Za-z0-9_.-], starting with a"
                            + " letter or digit");
        }
        return name;
    }
}

package io.shardq.broker;

import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * Resolved, immutable settings. Values come from {@link Builder#set}, then system properties,
 * then environment variables, then {@link BrokerProperty#defaultValue()}.
 */
public final class BrokerConfig {
    private final Map<BrokerProperty, String> values;
    /** What a leading {@code ~} means: $HOME, else Java's user.home (issue 24). */
    private final String home;
    /** $SHARDQ_HOME (or -Dshardq.home): replaces {@code ~/.shardq} in path settings; null when unset. */
    private final String shardqHome;

    private BrokerConfig(Map<BrokerProperty, String> values, String home, String shardqHome) {
        this.values = values;
        this.home = home;
        this.shardqHome = shardqHome;
    }

    /** Settings from system properties and the environment only. */
    public static BrokerConfig fromEnvironment() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder(System::getenv, System::getProperty);
    }

    public String get(BrokerProperty property) {
        return values.get(property);
    }

    public int getInt(BrokerProperty property) {
        String raw = get(property);
        try {
            return Integer.parseInt(raw.trim());
        } catch (NumberFormatException e) {
            throw new ShardQException(
                    ErrorKind.CONFIGURATION,
                    "setting " + property.key() + " (" + property.envName() + ") is \"" + raw
                            + "\": expected a whole number");
        }
    }

    /** A whole-number setting that must lie within {@code min..max}. */
    public int getInt(BrokerProperty property, int min, int max) {
        int v = getInt(property);
        if (v < min || v > max) {
            throw new ShardQException(
                    ErrorKind.CONFIGURATION,
                    "setting " + property.key() + " (" + property.envName() + ") is " + v + ": expected " + min + " to "
                            + max);
        }
        return v;
    }

    /** A decimal setting (a multiplier), at least 0. */
    public double getDouble(BrokerProperty property) {
        String raw = get(property);
        try {
            double v = Double.parseDouble(raw.trim());
            if (!(v >= 0) || Double.isInfinite(v)) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException e) {
            throw new ShardQException(
                    ErrorKind.CONFIGURATION,
                    "setting " + property.key() + " (" + property.envName() + ") is \"" + raw
                            + "\": expected a number of 0 or more, such as 2 or 1.5");
        }
    }

    public boolean getBoolean(BrokerProperty property) {
        String raw = get(property).trim().toLowerCase(java.util.Locale.ROOT);
        return switch (raw) {
            case "true", "on", "yes", "1" -> true;
            case "false", "off", "no", "0" -> false;
            default ->
                throw new ShardQException(
                        ErrorKind.CONFIGURATION,
                        "setting " + property.key() + " (" + property.envName() + ") is \"" + raw
                                + "\": expected true or false");
        };
    }

    /**
     * A path setting: a leading {@code ~/.shardq} is {@code $SHARDQ_HOME} when that is set, and a
     * leading {@code ~} is {@code $HOME} (Java's {@code user.home} comes from the password
     * database, not from {@code HOME}: two checkouts run with different {@code HOME}s would share
     * one embedded server).
     */
    public Path getPath(BrokerProperty property) {
        String raw = get(property).trim();
        if (shardqHome != null && (raw.equals("~/.shardq") || raw.startsWith("~/.shardq/"))) {
            raw = shardqHome + raw.substring("~/.shardq".length());
        } else if (raw.equals("~") || raw.startsWith("~/")) {
            raw = home + raw.substring(1);
        }
        return Path.of(raw).toAbsolutePath();
    }

    /** True when no JDBC URL is configured: the embedded PostgreSQL is used. */
    public boolean embedded() {
        return get(BrokerProperty.JDBC_URL).isBlank();
    }

    @Override
    public String toString() {
        Map<BrokerProperty, String> shown = new EnumMap<>(values);
        if (!shown.get(BrokerProperty.JDBC_PASSWORD).isEmpty()) {
            shown.put(BrokerProperty.JDBC_PASSWORD, "***");
        }
        shown.put(BrokerProperty.JDBC_URL, JdbcUrls.mask(shown.get(BrokerProperty.JDBC_URL)));
        return "BrokerConfig" + shown;
    }

    /** Collects explicit values; anything not set falls back to system property, env, default. */
    public static final class Builder {
        private final Map<BrokerProperty, String> explicit = new EnumMap<>(BrokerProperty.class);
        private final Function<String, String> env;
        private final Function<String, String> sysprops;

        Builder(Function<String, String> env, Function<String, String> sysprops) {
            this.env = env;
            this.sysprops = sysprops;
        }

        public Builder set(BrokerProperty property, Object value) {
            explicit.put(property, String.valueOf(Objects.requireNonNull(value, property.key())));
            return this;
        }

        /** Ignores the process environment and system properties (tests, embedding). */
        public Builder isolated() {
            return new Builder(k -> null, k -> null).copyFrom(this);
        }

        private Builder copyFrom(Builder other) {
            explicit.putAll(other.explicit);
            return this;
        }

        public BrokerConfig build() {
            Map<BrokerProperty, String> resolved = new EnumMap<>(BrokerProperty.class);
            for (BrokerProperty p : BrokerProperty.values()) {
                String v = explicit.get(p);
                if (v == null) {
                    v = sysprops.apply(p.key());
                }
                if (v == null) {
                    v = env.apply(p.envName());
                }
                resolved.put(p, v == null ? p.defaultValue() : v);
            }
            String home = blankToNull(env.apply("HOME"));
            String shardqHome = blankToNull(sysprops.apply("shardq.home"));
            return new BrokerConfig(
                    Map.copyOf(resolved),
                    home != null ? home : System.getProperty("user.home"),
                    shardqHome != null ? shardqHome : blankToNull(env.apply("SHARDQ_HOME")));
        }

        private static String blankToNull(String s) {
            return s == null || s.isBlank() ? null : s.strip();
        }
    }
}

package io.shardq.broker;

/**
 * Every ShardQ setting: its property key, environment variable, default and meaning. The
 * README's configuration table is checked against this enum by a test.
 *
 * <p>Precedence, highest first: a value passed in code ({@link BrokerConfig.Builder#set}), a
 * JVM system property with the key, an environment variable with the env name, the default.
 */
public enum BrokerProperty {
    JDBC_URL(
            "shardq.jdbc.url",
            "SHARDQ_JDBC_URL",
            "",
            "JDBC URL of the PostgreSQL server; empty starts the embedded PostgreSQL"),
    JDBC_USER("shardq.jdbc.user", "SHARDQ_USER", "postgres", "database user"),
    JDBC_PASSWORD("shardq.jdbc.password", "SHARDQ_PASSWORD", "", "database password (never logged)"),
    POOL_SIZE("shardq.pool.size", "SHARDQ_POOL_SIZE", "16", "maximum JDBC connections per connection factory"),
    CONNECT_TIMEOUT_MS(
            "shardq.jdbc.connect-timeout-ms",
            "SHARDQ_CONNECT_TIMEOUT_MS",
            "10000",
            "how long to wait for a database connection before failing"),
    MIGRATE_ON_START(
            "shardq.migrate-on-start",
            "SHARDQ_MIGRATE_ON_START",
            "true",
            "apply the shardq schema migrations when a broker starts"),
    EMBEDDED_DATA_DIR(
            "shardq.embedded.data-dir",
            "SHARDQ_EMBEDDED_DATA_DIR",
            "~/.shardq/pgdata",
            "data directory of the embedded PostgreSQL (kept across restarts)"),
    EMBEDDED_PORT(
            "shardq.embedded.port",
            "SHARDQ_EMBEDDED_PORT",
            "0",
            "port of the embedded PostgreSQL on 127.0.0.1; 0 picks a free one"),
    EMBEDDED_DURABLE(
            "shardq.embedded.durable",
            "SHARDQ_EMBEDDED_DURABLE",
            "true",
            "run the embedded PostgreSQL with fsync=on and synchronous_commit=on; false trades "
                    + "durability for speed");

    private final String key;
    private final String envName;
    private final String defaultValue;
    private final String description;

    BrokerProperty(String key, String envName, String defaultValue, String description) {
        this.key = key;
        this.envName = envName;
        this.defaultValue = defaultValue;
        this.description = description;
    }

    public String key() {
        return key;
    }

    public String envName() {
        return envName;
    }

    public String defaultValue() {
        return defaultValue;
    }

    public String description() {
        return description;
    }
}

package io.shardq.cli;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.store.Database;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import picocli.CommandLine.Option;

/**
 * Where the CLI connects: options first, then {@code SHARDQ_JDBC_URL}/{@code SHARDQ_PASSWORD},
 * then the embedded default. A password is read from a file or the environment, never from the
 * command line, so it cannot show in process listings.
 */
public final class ConnectionOptions {
    @Option(
            names = "--jdbc-url",
            paramLabel = "URL",
            description = "PostgreSQL JDBC URL (default: $SHARDQ_JDBC_URL, else the embedded PostgreSQL)")
    String jdbcUrl;

    @Option(names = "--user", paramLabel = "NAME", description = "database user (default: $SHARDQ_USER or postgres)")
    String user;

    @Option(
            names = "--password-file",
            paramLabel = "FILE",
            description = "file holding the database password (default: $SHARDQ_PASSWORD)")
    Path passwordFile;

    BrokerConfig config() {
        return kept(builder().build());
    }

    /**
     * With the embedded default, in the shardq process, the server is left running between
     * commands by a keeper (started here when none runs); this JVM then only attaches to it.
     */
    private static BrokerConfig kept(BrokerConfig config) {
        if (ShardqCommand.keepEmbedded) {
            EmbeddedKeeper.ensure(config);
        }
        return config;
    }

    /** The settings with the instance named, so {@code shardq status} elsewhere shows who is connected. */
    BrokerConfig config(String instanceName) {
        BrokerConfig.Builder b = builder();
        if (b.build().get(BrokerProperty.INSTANCE_NAME).isBlank()) {
            b.set(BrokerProperty.INSTANCE_NAME, instanceName);
        }
        return kept(b.build());
    }

    /** These options as a command line, for a child process that must connect where this one does. */
    java.util.List<String> asArguments() {
        java.util.List<String> args = new java.util.ArrayList<>();
        if (jdbcUrl != null) {
            args.addAll(java.util.List.of("--jdbc-url", jdbcUrl));
        }
        if (user != null) {
            args.addAll(java.util.List.of("--user", user));
        }
        if (passwordFile != null) {
            args.addAll(java.util.List.of(
                    "--password-file", passwordFile.toAbsolutePath().toString()));
        }
        return args;
    }

    private BrokerConfig.Builder builder() {
        BrokerConfig.Builder b = BrokerConfig.builder();
        if (jdbcUrl != null) {
            b.set(BrokerProperty.JDBC_URL, jdbcUrl);
        }
        if (user != null) {
            b.set(BrokerProperty.JDBC_USER, user);
        }
        if (passwordFile != null) {
            try {
                b.set(
                        BrokerProperty.JDBC_PASSWORD,
                        Files.readString(passwordFile, StandardCharsets.UTF_8).strip());
            } catch (IOException e) {
                throw new ShardQException(
                        ErrorKind.CONFIGURATION, "cannot read password file " + passwordFile + ": " + e);
            }
        }
        return b;
    }

    Database open() {
        return Database.open(config(), "shardq-cli");
    }

    /**
     * Starts the engine for a queue command. Automatic creation of destinations is off, so a
     * mistyped queue name is an error rather than a new queue; the instance is named after the
     * CLI so {@code shardq status} elsewhere shows who is connected.
     */
    Broker startBroker(String command) {
        BrokerConfig.Builder b = builder().set(BrokerProperty.AUTO_CREATE_DESTINATIONS, false);
        if (b.build().get(BrokerProperty.INSTANCE_NAME).isBlank()) {
            b.set(
                    BrokerProperty.INSTANCE_NAME,
                    "shardq-cli " + command + " (" + ProcessHandle.current().pid() + ")");
        }
        try {
            return Broker.start(kept(b.build()));
        } catch (ShardQException e) {
            if (missingSchema(e)) {
                throw new ShardQException(
                        ErrorKind.CONFIGURATION,
                        "the shardq schema is missing or incomplete in this database (run: shardq migrate)",
                        e);
            }
            throw e;
        }
    }

    /**
     * Opens a connection pool and an {@link io.shardq.broker.Admin} for a command that only needs
     * SQL (stats, lists, create, alter, drop, purge): no ShardQ instance. A missing schema (with
     * {@code SHARDQ_MIGRATE_ON_START=false}) is reported as {@link #startBroker} reports it.
     */
    AdminSession adminSession() {
        BrokerConfig config = builder().set(BrokerProperty.POOL_SIZE, 4).build(); // a migration takes two
        Database db = Database.open(kept(config), "shardq-cli");
        try {
            return AdminSession.open(db, config);
        } catch (ShardQException | IllegalStateException e) {
            if (missingSchema(e)) {
                throw new ShardQException(
                        ErrorKind.CONFIGURATION,
                        "the shardq schema is missing or incomplete in this database (run: shardq migrate)",
                        e);
            }
            throw e;
        }
    }

    /**
     * Runs {@code action} on the admin SQL functions over a plain pool, without starting an engine
     * or migrating: {@code grant}, {@code revoke} and {@code grants}, which a role holding the
     * administer privilege on a queue may run without owning the schema (an engine could not
     * even register such a role's instance). A queue name the functions do not know is reported
     * as the other queue commands report it.
     */
    <T> T withAdmin(String queue, java.util.function.Function<io.shardq.broker.Admin, T> action) {
        try (Database db = open()) {
            return action.apply(new io.shardq.broker.Admin(db.dataSource()));
        } catch (ShardQException e) {
            if (e.kind() == ErrorKind.UNKNOWN_DESTINATION) {
                throw new ShardQException(
                        ErrorKind.UNKNOWN_DESTINATION,
                        "queue \"" + queue + "\" does not exist (shardq queue list shows the queues)",
                        e);
            }
            if (missingSchema(e)) {
                throw new ShardQException(
                        ErrorKind.CONFIGURATION,
                        "the shardq schema is missing or older than this command (run: shardq migrate)",
                        e);
            }
            throw e;
        }
    }

    /** Undefined table or schema: the user turned migrate-on-start off and never migrated. */
    private static boolean missingSchema(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s
                    && ("42P01".equals(s.getSQLState())
                            || "3F000".equals(s.getSQLState())
                            || "42883".equals(s.getSQLState()))) { // 42883: a function of a later version
                return true;
            }
        }
        return false;
    }
}

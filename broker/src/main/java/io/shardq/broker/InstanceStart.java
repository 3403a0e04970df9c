package io.shardq.broker;

import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import io.shardq.broker.internal.SqlErrors;
import io.shardq.broker.message.Texts;
import io.shardq.broker.store.Database;
import io.shardq.sql.Migrations;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.postgresql.util.PSQLException;

/**
 * What an instance does before anything else runs: prepares the schema (unless {@code
 * shardq.migrate-on-start} is off) and registers itself in {@code shardq.instance}, under its
 * configured name or one that tells an operator which program it is.
 */
final class InstanceStart {
    private InstanceStart() {}

    /** Migrates when configured, then registers; returns the instance's id. */
    /** A registered instance: its id, and whether the schema is distributed over Citus. */
    record Registered(long id, boolean citus) {}

    static Registered migrateAndRegister(BrokerConfig config, Database database) {
        if (config.getBoolean(BrokerProperty.MIGRATE_ON_START)) {
            try {
                Migrations.migrate(database.dataSource());
            } catch (ShardQException e) {
                throw e;
            } catch (RuntimeException e) {
                throw schemaFailure(e, database.user());
            }
        }
        String name = config.get(BrokerProperty.INSTANCE_NAME);
        if (name.isBlank()) {
            name = defaultInstanceName(
                    System.getProperty("sun.java.command", ""),
                    ManagementFactory.getRuntimeMXBean().getName());
        }
        try (Connection c = database.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.INSTANCE_INSERT))) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new Registered(rs.getLong(1), rs.getBoolean(2));
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "registering the instance");
        }
    }

    /**
     * An instance's name when {@code shardq.instance.name} is not set: the program's main class or
     * jar, then the process and host ({@code "OrderServiceApplication (pid 6488 on vm)"}), so that
     * an operator can tell applications apart in {@code shardq status} and the console ({@code
     * 6488@vm} named nothing).
     *
     * @param command the JVM's {@code sun.java.command} (main class or jar, then the arguments)
     * @param pidAtHost the runtime's name, {@code pid@host}
     */
    static String defaultInstanceName(String command, String pidAtHost) {
        String main = command.isBlank() ? "java" : command.strip().split("\\s+")[0];
        main = main.substring(main.lastIndexOf('/') + 1);
        if (!main.endsWith(".jar")) {
            main = main.substring(main.lastIndexOf('.') + 1);
        }
        String[] ph = pidAtHost.split("@", 2);
        return main + " (pid " + ph[0] + (ph.length > 1 ? " on " + ph[1] : "") + ")";
    }

    /**
     * A migration that failed (Flyway's exception) as a ShardQ one: {@link ErrorKind#SECURITY}
     * when the role lacks privileges (SQLSTATE 42501), naming the role and the server's reason.
     */
    private static ShardQException schemaFailure(RuntimeException e, String role) {
        boolean privileges = false;
        String reason = e.getMessage();
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException se) {
                privileges |= "42501".equals(se.getSQLState());
                reason = se instanceof PSQLException p && p.getServerErrorMessage() != null
                        ? p.getServerErrorMessage().getMessage()
                        : se.getMessage();
            }
        }
        String message = "cannot prepare the shardq schema as PostgreSQL role \"" + role + "\": "
                + Texts.cut(String.valueOf(reason), 300)
                + (privileges
                        ? " (grant the role CREATE on the database, or run `shardq migrate` as a role that may,"
                                + " then set shardq.migrate-on-start=false)"
                        : "");
        return new ShardQException(privileges ? ErrorKind.SECURITY : ErrorKind.DATABASE, message, e);
    }
}

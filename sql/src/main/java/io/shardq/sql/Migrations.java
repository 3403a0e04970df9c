package io.shardq.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one entry point that applies the {@code shardq} schema. The broker calls it at start-up
 * (unless turned off) and the CLI calls it for {@code shardq migrate}.
 *
 * <p>Safe when several JVMs start at once: the whole run is serialised by a PostgreSQL
 * session-level advisory lock held on a connection of its own, so the second JVM waits, then
 * finds nothing left to do. Re-running is a no-op.
 */
public final class Migrations {
    /** The schema every ShardQ object lives in. */
    public static final String SCHEMA = "shardq";

    private static final Logger LOG = LoggerFactory.getLogger(Migrations.class);
    /** "SHARDQMG" as a number: the advisory lock key that serialises migrations. */
    private static final long LOCK_KEY = 0x5348415244514D47L;

    private Migrations() {}

    /** Outcome of {@link #migrate(DataSource)}. */
    public record Result(int applied, String schemaVersion) {}

    /** Applies every pending migration and returns how many ran and the resulting version. */
    public static Result migrate(DataSource dataSource) {
        return migrate(dataSource, null);
    }

    /**
     * Applies the pending migrations up to version {@code target} (null: all), for tests that
     * rebuild an older schema; repeatable migrations are applied too.
     */
    public static Result migrate(DataSource dataSource, String target) {
        try (Connection lockConnection = dataSource.getConnection()) {
            try (PreparedStatement lock = lockConnection.prepareStatement("select pg_advisory_lock(?)")) {
                lock.setLong(1, LOCK_KEY);
                lock.execute();
            }
            try {
                MigrateResult result = flyway(dataSource, target).migrate();
                if (target == null) { // an older schema (a test's) is never distributed
                    distributeOnCitus(dataSource);
                }
                String version = currentVersion(dataSource).orElse("none");
                if (result.migrationsExecuted > 0) {
                    LOG.info(
                            "shardq schema migrated: {} migration(s) applied, now at version {}",
                            result.migrationsExecuted,
                            version);
                }
                return new Result(result.migrationsExecuted, version);
            } finally {
                try (PreparedStatement unlock = lockConnection.prepareStatement("select pg_advisory_unlock(?)")) {
                    unlock.setLong(1, LOCK_KEY);
                    unlock.execute();
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("shardq schema migration failed: " + e.getMessage(), e);
        }
    }

    /**
     * On a Citus coordinator (the citus extension installed in this database), gives the catalog
     * its Citus kinds once ({@code shardq.citus_distribute()}, docs/design/citus.md); nothing
     * elsewhere.
     */
    private static void distributeOnCitus(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            boolean citus;
            try (ResultSet rs = s.executeQuery("select exists (select 1 from pg_extension where extname = 'citus')")) {
                rs.next();
                citus = rs.getBoolean(1);
            }
            if (!citus) {
                return;
            }
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try (ResultSet rs = s.executeQuery("select shardq.citus_distribute()")) {
                rs.next();
                String outcome = rs.getString(1);
                c.commit();
                if (!"already distributed".equals(outcome)) {
                    LOG.info("shardq schema on Citus: {}", outcome);
                }
            } catch (SQLException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(autoCommit);
            }
        }
    }

    /** The applied schema version, empty when the schema has not been created yet. */
    public static Optional<String> currentVersion(DataSource dataSource) {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select to_regclass('shardq.flyway_schema_history') is not null")) {
            rs.next();
            if (!rs.getBoolean(1)) {
                return Optional.empty();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the shardq schema version: " + e.getMessage(), e);
        }
        MigrationInfo current = flyway(dataSource).info().current();
        return current == null || current.getVersion() == null
                ? Optional.empty()
                : Optional.of(current.getVersion().getVersion());
    }

    private static Flyway flyway(DataSource dataSource) {
        return flyway(dataSource, null);
    }

    private static Flyway flyway(DataSource dataSource, String target) {
        org.flywaydb.core.api.configuration.FluentConfiguration config =
                Flyway.configure(Migrations.class.getClassLoader());
        if (target != null) {
            config.target(target);
        }
        return config.dataSource(dataSource)
                .schemas(SCHEMA)
                .createSchemas(true)
                .locations("classpath:io/shardq/sql/migration")
                .placeholderReplacement(false)
                .validateMigrationNaming(true)
                .load();
    }
}

package io.shardq.cli;

import io.shardq.broker.Admin;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.store.Database;
import io.shardq.sql.Migrations;

/**
 * What a command that only needs SQL holds for its length: a small connection pool and an
 * {@link Admin} over it, no ShardQ instance (issue 24: starting an instance registered it,
 * started its heartbeat, elector and lease threads, and stopped them again, for one query).
 * Running instances learn of a change by the catalog NOTIFY, as with {@code psql}. Pending
 * migrations are applied first, as an instance's start would, unless
 * {@code shardq.migrate-on-start=false}.
 */
final class AdminSession implements AutoCloseable {
    private final Database database;
    private final Admin admin;
    private final BrokerConfig config;

    AdminSession(Database database, BrokerConfig config) {
        this.database = database;
        this.config = config;
        this.admin = new Admin(database.dataSource());
    }

    static AdminSession open(Database database, BrokerConfig config) {
        try {
            if (config.getBoolean(BrokerProperty.MIGRATE_ON_START)) {
                Migrations.migrate(database.dataSource());
            } else if (Migrations.currentVersion(database.dataSource()).isEmpty()) {
                throw new io.shardq.broker.ShardQException(
                        io.shardq.broker.ErrorKind.CONFIGURATION,
                        "the shardq schema is missing or incomplete in this database (run: shardq migrate)");
            }
            return new AdminSession(database, config);
        } catch (RuntimeException e) {
            database.close();
            throw e;
        }
    }

    Admin admin() {
        return admin;
    }

    BrokerConfig config() {
        return config;
    }

    @Override
    public void close() {
        database.close();
    }
}

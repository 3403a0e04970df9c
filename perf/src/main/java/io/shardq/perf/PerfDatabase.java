package io.shardq.perf;

import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.store.Database;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The database a perf command runs on, opened one way for all of them: the configured one (or the
 * embedded server), with a pool large enough for the run's threads, and the environment its report
 * prints (server, settings, machine).
 */
final class PerfDatabase {
    private PerfDatabase() {}

    /** The configured database, its pool at least {@code 2 * maxThreads + 4} connections. */
    static Database open(int maxThreads) {
        return Database.open(config(maxThreads), "perf");
    }

    /** The configuration from the environment, the pool raised to what {@code maxThreads} need. */
    static BrokerConfig config(int maxThreads) {
        BrokerConfig config = BrokerConfig.fromEnvironment();
        int needed = 2 * maxThreads + 4;
        if (config.getInt(BrokerProperty.POOL_SIZE) >= needed) {
            return config;
        }
        return BrokerConfig.builder().set(BrokerProperty.POOL_SIZE, needed).build();
    }

    /** What the report says of the server and machine, read through {@code ds}. */
    static Environment environment(Database db, DataSource ds) throws SQLException {
        return new ServerProbe(ds).environment(db.displayUrl(), db.isEmbedded());
    }
}

package io.shardq.perf;

import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.store.Database;
import java.io.PrintWriter;
import java.sql.SQLException;
import java.util.function.ToIntFunction;
import java.util.function.UnaryOperator;
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

    /** What a command runs once the database is open: its report. */
    interface Body<R> {
        R run(DataSource ds, Environment env) throws Exception;
    }

    /**
     * The skeleton of a perf command: opens the database for {@code maxThreads}, wraps its data
     * source ({@code --unsafe}), probes the environment, runs {@code body}, writes the report's
     * files (with {@code --out}) and returns its exit code.
     */
    static <R extends RunOptions.Output.Files> int run(
            int maxThreads,
            UnaryOperator<DataSource> wrap,
            PrintWriter stdout,
            RunOptions.Output output,
            Body<R> body,
            ToIntFunction<R> exitCode)
            throws Exception {
        try (Database db = open(maxThreads)) {
            DataSource ds = wrap.apply(db.dataSource());
            R report = body.run(ds, environment(db, ds));
            output.write(report, stdout);
            stdout.flush();
            return exitCode.applyAsInt(report);
        }
    }

    /** What the report says of the server and machine, read through {@code ds}. */
    static Environment environment(Database db, DataSource ds) throws SQLException {
        return new ServerProbe(ds).environment(db.displayUrl(), db.isEmbedded());
    }
}

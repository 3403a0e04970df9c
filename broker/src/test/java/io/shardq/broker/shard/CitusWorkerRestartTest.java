package io.shardq.broker.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.testing.CitusDatabases;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A Citus worker restarted under load (docs/design/citus.md): two instances send and consume on
 * a queue whose shards are on both workers while one worker is restarted ({@code pg_ctl restart},
 * fast then immediate); nothing committed is lost or consumed twice, and the clients go on by
 * themselves ({@link FaultyWorkload}'s accounting). Runs when {@code SHARDQ_TEST_CITUS_URL} names
 * a coordinator whose workers run on this machine (their {@code pg_ctl} and data directory
 * reachable, as {@code dev/citus-cluster} makes them); skipped, saying so, otherwise.
 */
@Tag("fault")
class CitusWorkerRestartTest {
    static final String USER = System.getenv().getOrDefault("SHARDQ_TEST_USER", "postgres");
    static final String PASSWORD = System.getenv().getOrDefault("SHARDQ_TEST_PASSWORD", "");

    @Test
    void aWorkerRestartedUnderLoad_losesNothing_andClientsGoOn() throws Exception {
        String given = System.getenv("SHARDQ_TEST_CITUS_URL");
        Assumptions.assumeTrue(
                given != null && !given.isBlank(),
                "SHARDQ_TEST_CITUS_URL is not set: the Citus worker restart test is skipped");
        String base = given.contains("?") ? given.substring(0, given.indexOf('?')) : given;
        String prefix = base.substring(0, base.lastIndexOf('/') + 1);
        String adminUrl = prefix + "postgres";
        String database = "t_citus_restart_" + ProcessHandle.current().pid();
        String worker;
        try (Connection c = DriverManager.getConnection(adminUrl, USER, PASSWORD);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "select node_name, node_port from citus_get_active_worker_nodes() order by node_port limit 1")) {
            rs.next();
            worker = "jdbc:postgresql://" + rs.getString(1) + ":" + rs.getInt(2) + "/postgres";
        }
        String dataDir;
        String version;
        try (Connection c = DriverManager.getConnection(worker, USER, PASSWORD);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select current_setting('data_directory'),"
                        + " current_setting('server_version_num')::int / 10000")) {
            rs.next();
            dataDir = rs.getString(1);
            version = rs.getString(2);
        }
        Path pgCtl = Path.of("/usr/lib/postgresql/" + version + "/bin/pg_ctl");
        Assumptions.assumeTrue(
                Files.isDirectory(Path.of(dataDir)) && Files.isExecutable(pgCtl),
                "the worker's data directory " + dataDir + " or " + pgCtl
                        + " is not on this machine: the Citus worker restart test is skipped");

        CitusDatabases.create(adminUrl, USER, PASSWORD, database);
        BrokerConfig config = BrokerConfig.builder()
                .isolated()
                .set(BrokerProperty.JDBC_URL, prefix + database)
                .set(BrokerProperty.JDBC_USER, USER)
                .set(BrokerProperty.JDBC_PASSWORD, PASSWORD)
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.LEASE_TTL_MS, 3000)
                .set(BrokerProperty.POOL_SIZE, 16)
                .set(BrokerProperty.POOL_TIMEOUT_MS, 2000)
                .build();
        List<Long> resumeMillis = new ArrayList<>();
        try (Broker a = Broker.start(config);
                Broker b = Broker.start(config)) {
            a.admin()
                    .queues()
                    .create("citus.restart", QueueOptions.DEFAULTS.withShards(8).withMaxAttempts(1000));
            FaultyWorkload w = new FaultyWorkload("citus.restart").start(4, a, b);
            for (String mode : new String[] {"fast", "immediate"}) {
                w.awaitTraffic();
                restart(pgCtl, dataDir, mode);
                resumeMillis.add(w.millisUntilConsumerCommit(System.nanoTime()));
            }
            w.finishAndVerify(a);
            System.out.printf(
                    "CitusWorkerRestartTest: %s; ms from the worker accepting connections to the next consumer commit:"
                            + " %s%n",
                    w.summary(), resumeMillis);
        } finally {
            CitusDatabases.drop(adminUrl, USER, PASSWORD, database);
        }
    }

    /** pg_ctl restart of the worker, as the data directory's owner (PostgreSQL refuses root). */
    private static void restart(Path pgCtl, String dataDir, String mode) throws Exception {
        List<String> command = new ArrayList<>();
        if ("root".equals(System.getProperty("user.name"))) {
            command.addAll(
                    List.of("runuser", "-u", Files.getOwner(Path.of(dataDir)).getName(), "--"));
        }
        command.addAll(List.of(pgCtl.toString(), "-D", dataDir, "-m", mode, "-w", "-l", dataDir + "/log", "restart"));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
        assertThat(p.exitValue()).as("pg_ctl restart: " + out).isZero();
    }
}

package io.shardq.broker.testing;

import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Databases on a Citus cluster for tests (docs/citus.md): a database made on the coordinator is
 * made on every worker too (Citus's database propagation), the citus extension is created in it
 * on every node, and the coordinator's copy is given the same nodes as its {@code postgres}
 * database, the coordinator itself included (ShardQ needs it in the metadata).
 */
public final class CitusDatabases {
    private CitusDatabases() {}

    /** Whether {@code adminUrl}'s database has the citus extension, i.e. names a Citus node. */
    public static boolean isCoordinator(String adminUrl, String user, String password) {
        try (Connection c = DriverManager.getConnection(adminUrl, user, password);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select exists (select 1 from pg_extension where extname = 'citus')")) {
            rs.next();
            return rs.getBoolean(1);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot reach the test server at " + adminUrl + ": " + e.getMessage(), e);
        }
    }

    /** Creates database {@code name} over the cluster whose coordinator {@code adminUrl} is. */
    public static void create(String adminUrl, String user, String password, String name) {
        URI coordinator = URI.create(adminUrl.substring("jdbc:".length()));
        List<String[]> workers = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(adminUrl, user, password);
                Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("select node_name, node_port from citus_get_active_worker_nodes()"
                    + " order by node_name, node_port")) {
                while (rs.next()) {
                    workers.add(new String[] {rs.getString(1), Integer.toString(rs.getInt(2))});
                }
            }
            s.execute("set citus.enable_create_database_propagation = on");
            s.execute("create database " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("creating Citus database " + name + " failed: " + e.getMessage(), e);
        }
        for (String[] w : workers) {
            exec(
                    "jdbc:postgresql://" + w[0] + ":" + w[1] + "/" + name,
                    user,
                    password,
                    "create extension if not exists citus");
        }
        String url = "jdbc:postgresql://" + coordinator.getHost() + ":" + coordinator.getPort() + "/" + name;
        try (Connection c = DriverManager.getConnection(url, user, password);
                Statement s = c.createStatement()) {
            s.execute("create extension if not exists citus");
            try (PreparedStatement ps = c.prepareStatement("select citus_set_coordinator_host(?, ?)")) {
                ps.setString(1, coordinator.getHost());
                ps.setInt(2, coordinator.getPort());
                ps.execute();
            }
            for (String[] w : workers) {
                try (PreparedStatement ps = c.prepareStatement("select citus_add_node(?, ?)")) {
                    ps.setString(1, w[0]);
                    ps.setInt(2, Integer.parseInt(w[1]));
                    ps.execute();
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("making " + name + " a Citus database failed: " + e.getMessage(), e);
        }
    }

    /**
     * Drops database {@code name} from every node of the cluster. A worker may still hold a
     * connection to it (the coordinator's cached connections, the worker's maintenance daemon):
     * those are ended and the drop tried again.
     */
    public static void drop(String adminUrl, String user, String password, String name) {
        SQLException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            try (Connection c = DriverManager.getConnection(adminUrl, user, password);
                    Statement s = c.createStatement()) {
                if (attempt == 0) {
                    s.execute("set citus.enable_create_database_propagation = on");
                } else {
                    // a propagated drop that failed may have dropped it on some workers already:
                    // node by node from now on, each "if exists"
                    for (String w : workerUrls(adminUrl, user, password)) {
                        exec(w, user, password, "drop database if exists " + name + " with (force)");
                    }
                }
                s.execute("drop database if exists " + name + " with (force)");
                return;
            } catch (SQLException | IllegalStateException e) {
                last = e instanceof SQLException q ? q : new SQLException(e.getMessage(), e);
                endSessions(adminUrl, user, password, name);
            }
        }
        throw new IllegalStateException("dropping Citus database " + name + " failed: " + last.getMessage(), last);
    }

    /** The workers' maintenance databases, as JDBC URLs. */
    private static List<String> workerUrls(String adminUrl, String user, String password) throws SQLException {
        List<String> workers = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(adminUrl, user, password);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select node_name, node_port from citus_get_active_worker_nodes()")) {
            while (rs.next()) {
                workers.add("jdbc:postgresql://" + rs.getString(1) + ":" + rs.getInt(2) + "/postgres");
            }
        }
        return workers;
    }

    private static void endSessions(String adminUrl, String user, String password, String name) {
        List<String> workers;
        try {
            workers = workerUrls(adminUrl, user, password);
        } catch (SQLException e) {
            return; // the next drop reports what is wrong
        }
        for (String w : workers) {
            try (Connection c = DriverManager.getConnection(w, user, password);
                    PreparedStatement ps = c.prepareStatement(
                            "select pg_terminate_backend(pid) from pg_stat_activity where datname = ?")) {
                ps.setString(1, name);
                ps.executeQuery().close();
            } catch (SQLException e) {
                // tried again with the drop
            }
        }
    }

    private static void exec(String url, String user, String password, String sql) {
        try (Connection c = DriverManager.getConnection(url, user, password);
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + " failed at " + url + ": " + e.getMessage(), e);
        }
    }
}

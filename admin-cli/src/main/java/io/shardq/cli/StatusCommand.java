package io.shardq.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardq.broker.store.Database;
import io.shardq.sql.Migrations;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(
        name = "status",
        description = "Show the server, the schema version, the durability settings and the ShardQ instances alive.")
final class StatusCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    /** An instance whose heartbeat (every second by default) is older than this counts as gone. */
    static final int ALIVE_SECONDS = 30;

    private static final List<String> SETTINGS =
            List.of("fsync", "synchronous_commit", "full_page_writes", "wal_level", "shared_buffers");

    @Mixin
    JsonOption output;

    @Mixin
    ConnectionOptions connection;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    record Instance(long id, String name, long startedAt, long heartbeatAgeMillis) {}

    @Override
    public Integer call() throws SQLException {
        PrintWriter out = spec.commandLine().getOut();
        try (Database db = connection.open();
                Connection c = db.dataSource().getConnection()) {
            String version;
            Map<String, String> settings = new LinkedHashMap<>();
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("select current_setting('server_version')")) {
                rs.next();
                version = rs.getString(1);
            }
            for (String name : SETTINGS) {
                try (PreparedStatement ps = c.prepareStatement("select current_setting(?)")) {
                    ps.setString(1, name);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        settings.put(name, rs.getString(1));
                    }
                }
            }
            Optional<String> schema = Migrations.currentVersion(db.dataSource());
            List<Instance> instances = schema.isPresent() ? alive(c) : List.of();
            if (output.json) {
                ObjectNode o = Json.object();
                o.put("database", db.displayUrl());
                o.put("embedded", db.isEmbedded());
                o.put("serverVersion", version);
                o.put("schemaVersion", schema.orElse(null));
                ObjectNode set = o.putObject("settings");
                settings.forEach(set::put);
                ArrayNode a = o.putArray("instances");
                for (Instance i : instances) {
                    ObjectNode x = a.addObject();
                    x.put("id", i.id());
                    x.put("name", i.name());
                    x.put("startedAt", i.startedAt());
                    x.put("heartbeatAgeMillis", i.heartbeatAgeMillis());
                }
                Json.print(out, o);
                return 0;
            }
            out.printf("database            %s%s%n", db.displayUrl(), db.isEmbedded() ? " (embedded)" : "");
            out.printf("server version      PostgreSQL %s%n", version);
            out.printf("schema version      %s%n", schema.orElse("not created (run: shardq migrate)"));
            settings.forEach((k, v) -> out.printf("%-19s %s%n", k, v));
            if (schema.isEmpty()) {
                return 0;
            }
            out.println();
            if (instances.isEmpty()) {
                out.println("instances alive     none (no application or CLI has heartbeated in the last "
                        + ALIVE_SECONDS + " s)");
                return 0;
            }
            out.println("instances alive     " + instances.size());
            Table t = new Table("ID", "NAME", "STARTED", "LAST HEARTBEAT");
            for (Instance i : instances) {
                t.row(
                        i.id(),
                        i.name(),
                        Format.instant(i.startedAt()),
                        Format.duration(i.heartbeatAgeMillis()) + " ago");
            }
            t.print(out);
            return 0;
        }
    }

    private static List<Instance> alive(Connection c) throws SQLException {
        List<Instance> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("select id, name,"
                + " (extract(epoch from started_at) * 1000)::bigint,"
                + " greatest(0, (extract(epoch from now() - heartbeat_at) * 1000)::bigint)"
                + " from shardq.instance"
                + " where stopped_at is null and heartbeat_at > now() - make_interval(secs => ?) order by id")) {
            ps.setInt(1, ALIVE_SECONDS);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Instance(rs.getLong(1), rs.getString(2), rs.getLong(3), rs.getLong(4)));
                }
            }
        }
        return out;
    }
}

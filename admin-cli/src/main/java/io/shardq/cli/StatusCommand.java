package io.shardq.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardq.broker.Admin;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.store.Database;
import io.shardq.sql.Migrations;
import io.shardq.tools.TextTable;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(
        name = "status",
        description = "Show the server, the schema version, the durability settings and the ShardQ instances alive.")
final class StatusCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

    /** An instance whose heartbeat (every second by default) is older than this counts as gone. */
    static final int ALIVE_SECONDS = 30;

    private static final List<String> SETTINGS =
            List.of("fsync", "synchronous_commit", "full_page_writes", "wal_level", "shared_buffers");

    @Mixin
    JsonOption output;

    @Override
    public Integer call() throws SQLException {
        PrintWriter out = cli.spec.commandLine().getOut();
        try (Database db = cli.connection.open();
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
            List<Admin.Instance> instances = schema.isPresent() ? alive(db) : List.of();
            List<io.shardq.broker.catalog.DestinationInfo> shrinking = schema.isPresent() ? shrinking(db) : List.of();
            if (output.json) {
                ObjectNode o = Json.object();
                o.put("database", db.displayUrl());
                o.put("embedded", db.isEmbedded());
                o.put("serverVersion", version);
                o.put("schemaVersion", schema.orElse(null));
                ObjectNode set = o.putObject("settings");
                settings.forEach(set::put);
                ArrayNode a = o.putArray("instances");
                for (Admin.Instance i : instances) {
                    a.add(json(i));
                }
                ArrayNode sh = o.putArray("shrinking");
                for (io.shardq.broker.catalog.DestinationInfo d : shrinking) {
                    ObjectNode x = sh.addObject();
                    x.put("name", d.name());
                    x.put("kind", d.kind());
                    x.put("shardCount", d.shardCount());
                    x.put("shrinkingTo", d.activeShards());
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
            for (io.shardq.broker.catalog.DestinationInfo d : shrinking) {
                out.printf(
                        "%-19s %s %s: %d shards%s%n",
                        "shrinking", d.kind(), d.name(), d.shardCount(), QueueCommand.draining(d));
            }
            out.println();
            if (instances.isEmpty()) {
                out.println("instances alive     none (no application or CLI has heartbeated in the last "
                        + ALIVE_SECONDS + " s)");
                return 0;
            }
            out.println("instances alive     " + instances.size());
            TextTable t = Format.table("ID", "NAME", "STARTED", "LAST HEARTBEAT");
            for (Admin.Instance i : instances) {
                t.row(
                        i.id(),
                        i.name(),
                        Format.instant(i.startedAtMillis()),
                        Format.duration(i.heartbeatAgeMillis()) + " ago");
            }
            t.print(out);
            return 0;
        }
    }

    /** One instance as {@code status --json} shows it (and the console's {@code /api/instances}). */
    static ObjectNode json(Admin.Instance i) {
        ObjectNode x = Json.object();
        x.put("id", i.id());
        x.put("name", i.name());
        x.put("startedAt", i.startedAtMillis());
        x.put("heartbeatAgeMillis", i.heartbeatAgeMillis());
        x.put("shardsOwned", i.shardsOwned());
        x.put("leasesHeld", i.leasesHeld());
        return x;
    }

    /** Destinations with draining shards (a shrink under way); none to tell on a schema older than V015. */
    private static List<io.shardq.broker.catalog.DestinationInfo> shrinking(Database db) {
        try {
            return new Admin(db.dataSource())
                    .list().stream()
                            .filter(io.shardq.broker.catalog.DestinationInfo::shrinking)
                            .toList();
        } catch (ShardQException e) {
            return List.of(); // the catalog as an older schema has it: no shrink there
        }
    }

    /** Through {@code shardq.instances()}; a schema migrated before that function existed has none to ask. */
    private static List<Admin.Instance> alive(Database db) {
        try {
            return new Admin(db.dataSource()).cluster().instances(ALIVE_SECONDS);
        } catch (ShardQException e) {
            if (e.getCause() instanceof SQLException s && "42883".equals(s.getSQLState())) {
                throw new ShardQException(
                        ErrorKind.ILLEGAL_STATE,
                        "the shardq schema has no shardq.instances() yet: run shardq migrate first",
                        e);
            }
            throw e;
        }
    }
}

package io.shardq.cli;

import io.shardq.broker.store.Database;
import io.shardq.sql.Migrations;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(name = "status", description = "Show the server, the schema version and the durability settings.")
final class StatusCommand implements Callable<Integer> {
    @Mixin
    ConnectionOptions connection;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws SQLException {
        PrintWriter out = spec.commandLine().getOut();
        try (Database db = connection.open();
                Connection c = db.dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select current_setting('server_version'), current_setting('fsync'),"
                        + " current_setting('synchronous_commit'), current_setting('shared_buffers')")) {
            rs.next();
            out.printf("database            %s%s%n", db.displayUrl(), db.isEmbedded() ? " (embedded)" : "");
            out.printf("server version      PostgreSQL %s%n", rs.getString(1));
            out.printf(
                    "schema version      %s%n",
                    Migrations.currentVersion(db.dataSource()).orElse("not created (run: shardq migrate)"));
            out.printf("fsync               %s%n", rs.getString(2));
            out.printf("synchronous_commit  %s%n", rs.getString(3));
            out.printf("shared_buffers      %s%n", rs.getString(4));
            return 0;
        }
    }
}

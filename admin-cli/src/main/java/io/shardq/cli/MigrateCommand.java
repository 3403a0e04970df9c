package io.shardq.cli;

import io.shardq.broker.store.Database;
import io.shardq.sql.Migrations;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(
        name = "migrate",
        description = "Create or upgrade the shardq schema. Safe to run again and from several machines at once.")
final class MigrateCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

    @Override
    public Integer call() {
        try (Database db = cli.connection.open()) {
            Migrations.Result r = Migrations.migrate(db.dataSource());
            cli.spec
                    .commandLine()
                    .getOut()
                    .printf(
                            "%s: schema shardq at version %s (%s)%n",
                            db.displayUrl(),
                            r.schemaVersion(),
                            r.applied() == 0 ? "already up to date" : r.applied() + " migration(s) applied");
            return 0;
        }
    }
}

package io.shardq.cli;

import io.shardq.broker.Admin;
import io.shardq.broker.CacheStats;
import io.shardq.broker.catalog.Names;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "drop",
        description = {
            "Drop a cache, its entries and its tables (shardq.drop_cache).",
            "Refuses a cache holding live entries unless --force, as 'queue drop' refuses a queue with waiting messages."
        })
final class CacheDropCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

    @Parameters(paramLabel = "NAME", description = CacheCommand.NAME_HELP)
    String name;

    @Option(names = "--force", description = "drop it even if it holds live entries (they are lost)")
    boolean force;

    @Mixin
    JsonOption output;

    @Override
    public Integer call() {
        Names.checkCache(name);
        PrintWriter out = cli.spec.commandLine().getOut();
        try (AdminSession broker = cli.connection.adminSession()) {
            Admin admin = broker.admin();
            CacheStats s = CacheCommand.emptyOrForced(
                    admin,
                    name,
                    force,
                    held -> "cache " + name + " is not empty: " + held + "; drop it anyway with --force");
            admin.caches().drop(name);
            if (output.json) {
                Json.print(out, Json.object().put("dropped", name).put("entries", s.entries()));
            } else {
                out.println("dropped cache " + name
                        + (s.entries() > 0 ? " and its " + CacheCommand.entries(s.entries()) : ""));
            }
            return 0;
        }
    }
}

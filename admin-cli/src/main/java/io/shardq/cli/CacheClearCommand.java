package io.shardq.cli;

import io.shardq.broker.Broker;
import io.shardq.broker.CacheStats;
import io.shardq.broker.catalog.Names;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "clear",
        description = {
            "Remove every entry of a cache and say how many there were.",
            "One TRUNCATE of the cache's partitions; the cache and its settings stay. Refuses a cache holding live entries unless --force, as 'drop' does."
        })
final class CacheClearCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

    @Parameters(paramLabel = "NAME", description = CacheCommand.NAME_HELP)
    String name;

    @Option(names = "--force", description = "confirm: the live entries are lost")
    boolean force;

    @Mixin
    JsonOption output;

    @Override
    public Integer call() {
        Names.checkCache(name);
        PrintWriter out = cli.spec.commandLine().getOut();
        try (Broker broker = cli.connection.startBroker("cache clear")) {
            CacheStats s = CacheCommand.emptyOrForced(
                    broker.admin(),
                    name,
                    force,
                    held -> "cache " + name + " holds " + held + ": clear it with --force (they are lost)");
            // counted just before: entries written between the count and the TRUNCATE go too
            CacheCommand.open(broker, name).clear();
            if (output.json) {
                Json.print(out, Json.object().put("cache", name).put("cleared", s.entries()));
            } else {
                out.println("cleared cache " + name + ": " + CacheCommand.entries(s.entries()) + " removed");
            }
            return 0;
        }
    }
}

package io.shardq.cli;

import io.shardq.broker.Broker;
import io.shardq.broker.catalog.Names;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

@Command(
        name = "remove",
        description = {
            "Remove keys from a cache and say how many had a live entry.",
            "One statement (removeAll); a key without a live entry is not an error."
        })
final class CacheRemoveCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

    @Parameters(index = "0", paramLabel = "NAME", description = CacheCommand.NAME_HELP)
    String name;

    @Parameters(
            index = "1..*",
            arity = "1..*",
            paramLabel = "KEY",
            description = "the keys: UTF-8 text, or base64 with --base64")
    List<String> keys;

    @Mixin
    CacheBytes bytes;

    @Mixin
    JsonOption output;

    @Override
    public Integer call() {
        Names.checkCache(name);
        List<byte[]> k = new ArrayList<>();
        for (String key : keys) {
            k.add(bytes.encode("key", key));
        }
        PrintWriter out = cli.spec.commandLine().getOut();
        try (Broker broker = cli.connection.startBroker("cache remove")) {
            int removed = CacheCommand.open(broker, name).removeAll(k);
            long distinct = k.stream().map(java.nio.ByteBuffer::wrap).distinct().count();
            if (output.json) {
                Json.print(
                        out,
                        Json.object().put("cache", name).put("keys", distinct).put("removed", removed));
            } else {
                out.println("removed " + Format.count(removed) + " of " + Format.count(distinct)
                        + (distinct == 1 ? " key" : " keys") + " from cache " + name
                        + (removed < distinct ? " (" + Format.count(distinct - removed) + " had no live entry)" : ""));
            }
            return 0;
        }
    }
}

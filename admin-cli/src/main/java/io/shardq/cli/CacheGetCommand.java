package io.shardq.cli;

import io.shardq.broker.Broker;
import io.shardq.broker.catalog.Names;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

@Command(
        name = "get",
        description = {
            "Print the value of a key, followed by a newline.",
            "Exits 3 with a message on stderr when the key has no live entry (never put, removed or expired), so scripts can tell a miss from a failure (2). A value that is not UTF-8 text needs --base64; --json prints the value exactly."
        })
final class CacheGetCommand implements Callable<Integer> {
    /** Exit code of a key with no live entry. */
    static final int NO_ENTRY = 3;

    @Mixin
    CommandContext cli;

    @Parameters(index = "0", paramLabel = "NAME", description = CacheCommand.NAME_HELP)
    String name;

    @Parameters(index = "1", paramLabel = "KEY", description = "the key: UTF-8 text, or base64 with --base64")
    String key;

    @Mixin
    CacheBytes bytes;

    @Mixin
    JsonOption output;

    @Override
    public Integer call() {
        Names.checkCache(name);
        byte[] k = bytes.encode("key", key);
        PrintWriter out = cli.spec.commandLine().getOut();
        try (Broker broker = cli.connection.startBroker("cache get")) {
            byte[] v = CacheCommand.open(broker, name).get(k);
            if (v == null) {
                PrintWriter err = cli.spec.commandLine().getErr();
                err.println("shardq: cache " + name + " has no entry for key \"" + CacheBytes.cut(key)
                        + "\" (never put, removed or expired)");
                err.flush();
                return NO_ENTRY;
            }
            String value = bytes.decode("the value of key \"" + CacheBytes.cut(key) + "\"", v);
            if (output.json) {
                Json.print(
                        out,
                        Json.object()
                                .put("cache", name)
                                .put("key", key)
                                .put("value", value)
                                .put("base64", bytes.base64)
                                .put("bytes", v.length));
            } else {
                out.println(value);
            }
            out.flush();
            return 0;
        }
    }
}

package io.shardq.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardq.broker.Admin;
import io.shardq.broker.catalog.Names;
import io.shardq.tools.TextTable;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

@Command(
        name = "grants",
        description = {
            "List who may send, receive, browse or administer a queue (shardq.grants).",
            "Its owner, who may do everything, is not listed."
        })
final class GrantsCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

    @Parameters(paramLabel = "QUEUE", description = QueueCommand.NAME_HELP)
    String queue;

    @Mixin
    JsonOption output;

    @Override
    public Integer call() {
        Names.checkDestination(queue);
        PrintWriter out = cli.spec.commandLine().getOut();
        List<Admin.Grant> grants =
                cli.connection.withAdmin(queue, admin -> admin.grants().list(queue));
        if (output.json) {
            ObjectNode o = Json.object();
            o.put("queue", queue);
            ArrayNode a = o.putArray("grants");
            for (Admin.Grant g : grants) {
                a.addObject()
                        .put("role", g.role())
                        .put("privilege", g.privilege().sqlName());
            }
            Json.print(out, o);
        } else if (grants.isEmpty()) {
            out.println("no grants on queue " + queue + ": only its owner may use it");
        } else {
            TextTable t = Format.table("ROLE", "PRIVILEGE");
            grants.forEach(g -> t.row(g.role(), g.privilege().sqlName()));
            t.print(out);
        }
        return 0;
    }
}

package io.shardq.cli;

import io.shardq.broker.Admin;
import io.shardq.broker.Privilege;
import picocli.CommandLine.Command;

@Command(
        name = "grant",
        description = {
            "Grant a PostgreSQL role a privilege on a queue (shardq.grant).",
            "JMS users of that role, and its psql sessions (browse: SELECT on the queue's table), may then use it."
        })
final class GrantCommand extends GrantChangeCommand {
    @Override
    void apply(Admin admin, String queue, String role, Privilege privilege) {
        admin.grants().grant(queue, role, privilege);
    }

    @Override
    String done(String queue, String role, Privilege privilege) {
        return "granted " + privilege.sqlName() + " on queue " + queue + " to " + role;
    }
}

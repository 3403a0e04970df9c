package io.shardq.cli;

import io.shardq.broker.Admin;
import io.shardq.broker.Privilege;
import picocli.CommandLine.Command;

@Command(
        name = "revoke",
        description = {
            "Revoke a privilege on a queue from a PostgreSQL role (shardq.revoke).",
            "Revoking receive or browse takes both. Open JMS connections of the role notice within"
                    + " shardq.security.grant-cache-ms."
        })
final class RevokeCommand extends GrantChangeCommand {
    @Override
    void apply(Admin admin, String queue, String role, Privilege privilege) {
        admin.grants().revoke(queue, role, privilege);
    }

    @Override
    String done(String queue, String role, Privilege privilege) {
        return "revoked " + privilege.sqlName() + " on queue " + queue + " from " + role;
    }
}

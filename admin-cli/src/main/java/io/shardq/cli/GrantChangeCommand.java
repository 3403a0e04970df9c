package io.shardq.cli;

import io.shardq.broker.Admin;
import io.shardq.broker.Privilege;
import io.shardq.broker.catalog.Names;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code grant} and {@code revoke}: the same arguments, the opposite change. */
abstract class GrantChangeCommand implements Callable<Integer> {
    static final String PRIVILEGE_HELP =
            "send, receive (includes browse), browse or administer (purge, start, stop, grant and revoke)";

    @Mixin
    CommandContext cli;

    @Parameters(index = "0", paramLabel = "QUEUE", description = QueueCommand.NAME_HELP)
    String queue;

    @Parameters(index = "1", paramLabel = "ROLE", description = "an existing PostgreSQL role (case-sensitive)")
    String role;

    @Parameters(index = "2", paramLabel = "PRIVILEGE", description = PRIVILEGE_HELP)
    String privilege;

    abstract void apply(Admin admin, String queue, String role, Privilege privilege);

    /** "granted receive on queue orders to billing_app" */
    abstract String done(String queue, String role, Privilege privilege);

    @Override
    public Integer call() {
        Names.checkDestination(queue);
        Privilege p = Privilege.parse(privilege);
        cli.connection.withAdmin(queue, admin -> {
            apply(admin, queue, role, p);
            return null;
        });
        cli.spec.commandLine().getOut().println(done(queue, role, p));
        return 0;
    }
}

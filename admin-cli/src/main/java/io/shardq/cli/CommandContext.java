package io.shardq.cli;

import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Spec;

/**
 * What every command that reaches the database declares, as one picocli mixin: {@code -h/--help},
 * the connection options ({@link ConnectionOptions}: URL, user, password, the embedded server) and
 * the command's own spec, for its output streams and usage errors. A command holds {@code @Mixin
 * CommandContext cli;} and opens what it needs with {@code cli.connection.adminSession()} or {@code
 * cli.connection.startBroker(...)}.
 */
final class CommandContext {
    @Mixin
    HelpOption help;

    @Mixin
    ConnectionOptions connection;

    /** The command this mixin is part of (not the mixin's own spec). */
    @Spec(Spec.Target.MIXEE)
    CommandLine.Model.CommandSpec spec;
}

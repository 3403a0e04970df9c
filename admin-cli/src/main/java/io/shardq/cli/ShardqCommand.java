package io.shardq.cli;

import io.shardq.broker.ShardQException;
import java.io.PrintWriter;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The {@code shardq} command: administration of ShardQ from a terminal. */
@Command(
        name = "shardq",
        mixinStandardHelpOptions = true,
        versionProvider = VersionCommand.Provider.class,
        description = "Administer ShardQ, the Jakarta Messaging provider stored in PostgreSQL.",
        subcommands = {
            VersionCommand.class,
            MigrateCommand.class,
            StatusCommand.class,
            AutoComplete.GenerateCompletion.class,
            CommandLine.HelpCommand.class
        })
public final class ShardqCommand implements Runnable {
    @Option(
            names = {"--verbose"},
            description = "Show library logs and full stack traces on failure.",
            scope = CommandLine.ScopeType.INHERIT)
    boolean verbose;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    public static void main(String[] args) {
        System.exit(execute(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
    }

    /** Runs the command line with the given streams and returns the exit code. */
    public static int execute(String[] args, PrintWriter out, PrintWriter err) {
        for (String a : args) {
            if (a.equals("--verbose")) {
                System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "info");
            }
        }
        CommandLine cli = new CommandLine(new ShardqCommand());
        cli.setOut(out);
        cli.setErr(err);
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            ShardqCommand root = commandLine.getCommandSpec().root().userObject() instanceof ShardqCommand r ? r : null;
            if (root != null && root.verbose) {
                e.printStackTrace(commandLine.getErr());
            }
            commandLine.getErr().println("shardq: " + describe(e));
            commandLine.getErr().flush();
            return e instanceof ShardQException ? 2 : 1;
        });
        return cli.execute(args);
    }

    static String describe(Throwable e) {
        if (e instanceof ShardQException || e.getCause() == null) {
            return e.getMessage() == null ? e.toString() : e.getMessage();
        }
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return e.getMessage()
                + (t.getMessage() != null && !e.getMessage().contains(t.getMessage()) ? ": " + t.getMessage() : "");
    }
}

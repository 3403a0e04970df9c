package io.shardq.cli;

import io.shardq.broker.ShardQException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
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
        footer = {
            "",
            "Every command takes --help; read commands also take --json.",
            "Connects to --jdbc-url, else $SHARDQ_JDBC_URL, else the embedded PostgreSQL",
            "(data in $SHARDQ_EMBEDDED_DATA_DIR, default $SHARDQ_HOME/pgdata, else",
            "$HOME/.shardq/pgdata), which stays up between commands until 'shardq stop'",
            "or $SHARDQ_EMBEDDED_IDLE (default 15m) without a client.",
            "Exit codes:",
            "  0    done",
            "  1    unexpected failure (file, I/O), or the demo's check failed",
            "  2    bad input or refused (unknown name, bad value, database unreachable,",
            "       non-empty queue)",
            "  3    cache get found no live entry",
            "  130  stopped by Ctrl-C (after a complete batch)",
            "Shell completion: source <(shardq generate-completion)"
        },
        subcommands = {
            VersionCommand.class,
            DemoCommand.class,
            DemoConsumerCommand.class,
            MigrateCommand.class,
            StatusCommand.class,
            StopCommand.class,
            EmbeddedServerCommand.class,
            ConsoleCommand.class,
            QueueCommand.class,
            DlqCommand.class,
            TopicCommand.class,
            SubscriptionCommand.class,
            CacheCommand.class,
            GrantCommand.class,
            RevokeCommand.class,
            GrantsCommand.class,
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

    /** True when stdout is the process's own (not a test's writer): drain may fsync it. */
    static volatile boolean processStdout;

    /**
     * True in the {@code shardq} process itself: with the embedded default, commands leave the
     * server running between them ({@link EmbeddedKeeper}). Off when tests run commands in their
     * own JVM, which must leave no process behind.
     */
    static volatile boolean keepEmbedded;

    public static void main(String[] args) {
        processStdout = true;
        keepEmbedded = true;
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
            commandLine.getErr().println("shardq: " + oneLine(describe(e)));
            commandLine.getErr().flush();
            return e instanceof ShardQException ? 2 : 1;
        });
        cli.setParameterExceptionHandler((e, arguments) -> {
            CommandLine c = e.getCommandLine();
            c.getErr().println("shardq: " + usageProblem(e));
            c.getErr().flush();
            return c.getCommandSpec().exitCodeOnInvalidInput();
        });
        int exit = cli.execute(args);
        // a table ends in print(), not println(): a PrintWriter over System.out flushes only on
        // println, and System.exit does not flush it
        out.flush();
        err.flush();
        return exit;
    }

    /** One line: what is wrong with the command line, and where to read more. */
    private static String usageProblem(CommandLine.ParameterException e) {
        CommandLine c = e.getCommandLine();
        String command = c.getCommandSpec().qualifiedName();
        if (e instanceof CommandLine.UnmatchedArgumentException u
                && !u.getUnmatched().isEmpty()) {
            String first = u.getUnmatched().get(0);
            if (c.getCommandSpec().root() == c.getCommandSpec() && first.equals("subscriber")) {
                return "'subscriber' is not a command: a topic's subscribers are 'shardq subscription add|remove|list'"
                        + " (see 'shardq subscription --help')";
            }
            if (!c.getSubcommands().isEmpty() && !first.startsWith("-")) {
                return "'" + first + "' is not a command of '" + command + "': expected one of "
                        + String.join(", ", visibleSubcommands(c)) + " (see '" + command + " --help')";
            }
        }
        return e.getMessage() + " (see '" + command + " --help')";
    }

    private static List<String> visibleSubcommands(CommandLine c) {
        List<String> names = new ArrayList<>();
        c.getSubcommands().forEach((name, sub) -> {
            if (!sub.getCommandSpec().usageMessage().hidden() && !name.equals("help")) {
                names.add(name);
            }
        });
        return names;
    }

    /** Library messages may span lines (Flyway's do): the CLI's error stays one line. */
    static String oneLine(String message) {
        return message.lines()
                .map(String::strip)
                .filter(l -> !l.isEmpty() && !l.startsWith("Need more flexibility"))
                .reduce((a, b) -> a + "; " + b)
                .orElse(message);
    }

    static String describe(Throwable e) {
        if (e instanceof UncheckedIOException u) {
            e = u.getCause();
        }
        if (e instanceof NoSuchFileException f) {
            return "no such file or directory: " + f.getFile();
        }
        if (e instanceof AccessDeniedException f) {
            return "permission denied: " + f.getFile();
        }
        if (e instanceof FileAlreadyExistsException f) {
            return "file exists: " + f.getFile();
        }
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

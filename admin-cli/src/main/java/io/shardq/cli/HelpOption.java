package io.shardq.cli;

import picocli.CommandLine.Option;

/** {@code -h/--help} on every command (the root adds {@code --version} too). */
final class HelpOption {
    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "Show this help message and exit.")
    boolean help;
}

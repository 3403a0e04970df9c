package io.shardq.cli;

import picocli.CommandLine.Option;

/** {@code --json} for read commands: one valid JSON document on stdout instead of a table. */
final class JsonOption {
    @Option(names = "--json", description = "print JSON instead of a table")
    boolean json;
}

package io.shardq.cli;

import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * {@code --max-key-bytes} and {@code --max-value-bytes} of {@code cache create} and {@code cache
 * alter}, as a picocli mixin: declared and checked once against what the engine allows.
 */
final class CacheSizeLimits {
    static final long MAX_KEY_LIMIT = 65_536;
    static final long MAX_VALUE_LIMIT = 268_435_456;

    @Option(
            names = "--max-key-bytes",
            paramLabel = "SIZE",
            converter = Sizes.Converter.class,
            description = "largest key accepted, 1 to 64kB (a new cache: 1kB when left out)")
    Long maxKeyBytes;

    @Option(
            names = "--max-value-bytes",
            paramLabel = "SIZE",
            converter = Sizes.Converter.class,
            description = "largest value accepted, 1 to 256MB (a new cache: 1MB when left out)")
    Long maxValueBytes;

    boolean given() {
        return maxKeyBytes != null || maxValueBytes != null;
    }

    /** The key limit given, checked; null when left out. */
    Integer keyLimit(CommandLine.Model.CommandSpec spec) {
        return maxKeyBytes == null ? null : limit(spec, "--max-key-bytes", maxKeyBytes, MAX_KEY_LIMIT);
    }

    /** The value limit given, checked; null when left out. */
    Integer valueLimit(CommandLine.Model.CommandSpec spec) {
        return maxValueBytes == null ? null : limit(spec, "--max-value-bytes", maxValueBytes, MAX_VALUE_LIMIT);
    }

    /** A key or value size limit within what the engine allows (1 B to {@code max}). */
    private static int limit(CommandLine.Model.CommandSpec spec, String option, long n, long max) {
        if (n < 1 || n > max) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    option + " " + Format.count(n) + " is invalid: expected 1 to " + Format.count(max) + " bytes ("
                            + Format.bytes(max) + ")");
        }
        return (int) n;
    }
}

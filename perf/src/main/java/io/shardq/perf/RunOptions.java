package io.shardq.perf;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import javax.sql.DataSource;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The options the perf commands share, as picocli mixins ({@code @Mixin}), so each is declared
 * once with one description: where the report's files go, the unsafe commit setting, the step
 * times of the steady-state benchmarks and the message settings of the queue and topic ones.
 */
final class RunOptions {
    private RunOptions() {}

    /** {@code --out DIR}: also write the report's files. */
    static final class Output {
        @Option(
                names = "--out",
                paramLabel = "DIR",
                description = "also write results.json, results.csv and results.html here")
        Path dir;

        /** A report that writes its files into a directory and says which. */
        @FunctionalInterface
        interface Files {
            List<Path> writeTo(Path dir) throws IOException;
        }

        /** With {@code --out}: writes the report's files and says where; otherwise nothing. */
        void write(Files report, PrintWriter stdout) throws IOException {
            if (dir != null) {
                ReportFiles.announce(report.writeTo(dir), stdout);
            }
        }
    }

    /** {@code --unsafe}: {@code synchronous_commit=off} in the run's sessions. */
    static final class Unsafe {
        @Option(
                names = "--unsafe",
                description = "synchronous_commit=off in the run's sessions; the report says so on its first line")
        boolean on;

        /** The run's data source: {@code ds} itself, or with {@code synchronous_commit=off} when asked. */
        DataSource apply(DataSource ds) {
            return on ? new SessionSettingDataSource(ds, "synchronous_commit", "off") : ds;
        }
    }

    /**
     * {@code --warmup} and {@code --duration} of each step, in seconds (fractions allowed). Each
     * command gives its own defaults: {@code @Mixin RunOptions.Steps steps = new RunOptions.Steps(5, 20)}
     * (picocli keeps an initialised mixin and shows its values as the defaults).
     */
    static final class Steps {
        @Option(
                names = "--warmup",
                paramLabel = "SECONDS",
                description = "warm-up per step, not measured (default: ${DEFAULT-VALUE})")
        double warmup;

        @Option(
                names = "--duration",
                paramLabel = "SECONDS",
                description = "measured time per step (default: ${DEFAULT-VALUE})")
        double duration;

        Steps(double warmup, double duration) {
            this.warmup = warmup;
            this.duration = duration;
        }

        /** Picocli's no-argument constructor: 5 s of warm-up, 20 s measured. */
        Steps() {
            this(5, 20);
        }

        java.time.Duration warmup() {
            return java.time.Duration.ofMillis(Math.round(warmup * 1000));
        }

        java.time.Duration duration() {
            return java.time.Duration.ofMillis(Math.round(duration * 1000));
        }
    }

    /**
     * {@code --payload}, {@code --batch} and {@code --shards} of the message benchmarks; each
     * command gives its defaults as for {@link Steps} (512 B, 10 per commit, 8 shards unless said).
     */
    static final class Messages {
        @Option(names = "--payload", paramLabel = "BYTES", description = "payload size (default: ${DEFAULT-VALUE})")
        int payload;

        @Option(
                names = "--batch",
                paramLabel = "N",
                description = "messages per commit, sending and receiving (default: ${DEFAULT-VALUE})")
        int batch;

        @Option(
                names = "--shards",
                paramLabel = "N",
                description = "shards of each queue and topic, for systems that shard (default: ${DEFAULT-VALUE})")
        int shards;

        Messages(int payload, int batch, int shards) {
            this.payload = payload;
            this.batch = batch;
            this.shards = shards;
        }

        /** Picocli's no-argument constructor: 512 B, 10 per commit, 8 shards. */
        Messages() {
            this(512, 10, 8);
        }
    }

    /**
     * What the steady-state message benchmarks ({@code perf queue}, {@code perf topic}) take
     * together: messages, step times, {@code --unsafe} and {@code --out}, one mixin of mixins.
     */
    static final class Steady {
        @CommandLine.Mixin
        Messages messages;

        @CommandLine.Mixin
        Steps steps = new Steps(5, 20);

        @CommandLine.Mixin
        Unsafe unsafe;

        @CommandLine.Mixin
        Output output;
    }
}

package io.shardq.perf;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * What the users of {@code perf mixed} do: a weighted mix of transaction templates, after the
 * TPoX benchmark's workload files. Each user picks a template by weight, runs its steps in one
 * transacted JMS session, commits, and picks again, with no think time. The file format is
 * described in {@link WorkloadParser} and in the default workload, {@value #DEFAULT_RESOURCE}.
 *
 * @param source where it was read from, for reports and error messages
 * @param accounts rows of {@code shardq_perf.accounts}, the table {@code update-account} changes
 * @param payloadBytes size of every message body sent
 * @param shards shards of the benchmark's queue
 * @param prefill messages sent before the first stage, so receives and browses find some
 * @param receiveWaitMillis how long a {@code receive} step waits for its first message
 * @param templates at least one, names unique, in file order
 */
record Workload(
        String source,
        int accounts,
        int payloadBytes,
        int shards,
        int prefill,
        int receiveWaitMillis,
        List<Template> templates) {

    /** The built-in workload, a classpath resource next to this class. */
    static final String DEFAULT_RESOURCE = "mixed-default.workload";

    Workload {
        templates = List.copyOf(templates);
    }

    /** The built-in workload. */
    static Workload defaults() {
        try (InputStream in = Workload.class.getResourceAsStream(DEFAULT_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("resource " + DEFAULT_RESOURCE + " is missing from the classpath");
            }
            return WorkloadParser.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), "default (built in)");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A workload file; a missing file or a bad line fails naming the file and the line. */
    static Workload load(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("workload file " + file + " does not exist");
        } catch (IOException e) {
            throw new IllegalArgumentException("workload file " + file + " cannot be read: " + e.getMessage(), e);
        }
        return WorkloadParser.parse(text, file.toString());
    }

    int totalWeight() {
        return templates.stream().mapToInt(Template::weight).sum();
    }

    /** How many times each committed transaction of the mix runs a step of this kind, in total. */
    long stepsOf(Step.Kind kind, long[] committedPerTemplate) {
        long n = 0;
        for (int i = 0; i < templates.size(); i++) {
            n += committedPerTemplate[i] * templates.get(i).stepsOf(kind);
        }
        return n;
    }

    /** One transaction kind: its steps run in order in one transaction, then commit. */
    record Template(String name, int weight, List<Step> steps) {
        Template {
            steps = List.copyOf(steps);
        }

        /** Steps of this kind in the template. */
        int stepsOf(Step.Kind kind) {
            return (int) steps.stream().filter(s -> s.kind() == kind).count();
        }

        /** Messages this template's steps name, of one kind: {@code send 10, send 5} gives 15. */
        int countOf(Step.Kind kind) {
            return steps.stream()
                    .filter(s -> s.kind() == kind)
                    .mapToInt(Step::count)
                    .sum();
        }

        /** {@code send 10, update-account}, as written in a workload file. */
        String describe() {
            return String.join(", ", steps.stream().map(Step::toString).toList());
        }
    }

    /**
     * One step of a template.
     *
     * @param count messages for {@code send}, {@code receive} and {@code browse}; 1 for the
     *     application SQL steps
     */
    record Step(Kind kind, int count) {
        /** What a step does; {@code token} is how a workload file names it. */
        enum Kind {
            /** Sends {@code count} persistent messages; written at commit. */
            SEND("send", true),
            /** Receives up to {@code count} messages: waits for the first, then takes what is there. */
            RECEIVE("receive", true),
            /** Looks at up to {@code count} waiting messages with a QueueBrowser; consumes nothing. */
            BROWSE("browse", true),
            /** UPDATE of one random account row, on the session's own JDBC connection. */
            UPDATE_ACCOUNT("update-account", false),
            /** INSERT of one audit row, on the session's own JDBC connection. */
            INSERT_AUDIT("insert-audit", false);

            final String token;
            final boolean counted;

            Kind(String token, boolean counted) {
                this.token = token;
                this.counted = counted;
            }

            static Kind byToken(String token) {
                for (Kind k : values()) {
                    if (k.token.equals(token.toLowerCase(Locale.ROOT))) {
                        return k;
                    }
                }
                return null;
            }
        }

        @Override
        public String toString() {
            return kind.counted ? kind.token + " " + count : kind.token;
        }
    }
}

package io.shardq.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The demo's consumer processes ({@code shardq demo-consumer}): each a JVM of its own, started
 * with this JVM's class path and connection options, so that one can be killed with {@code kill
 * -9} like a crashed application. Each reports on stdout; its stderr goes to a log file.
 */
final class DemoConsumers implements AutoCloseable {
    private final ConnectionOptions connection;
    private final List<Consumer> all = new CopyOnWriteArrayList<>();

    DemoConsumers(ConnectionOptions connection) {
        this.connection = connection;
    }

    static final class Consumer {
        final int index;
        final Process process;
        final Path log;
        final CountDownLatch ready = new CountDownLatch(1);
        volatile long processed;
        volatile long hits;
        volatile long misses;
        volatile boolean killed;

        Consumer(int index, Process process, Path log) {
            this.index = index;
            this.process = process;
            this.log = log;
        }

        String describe() {
            return "#" + index + " (pid " + process.pid() + ")";
        }
    }

    /** Starts consumer {@code index}. */
    Consumer start(int index) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx256m");
        // settings given to this JVM as -Dshardq.* apply to the consumers too, and so does the log level
        System.getProperties().stringPropertyNames().stream()
                .filter(k -> k.startsWith("shardq.") || k.startsWith("org.slf4j.simpleLogger."))
                .sorted()
                .forEach(k -> cmd.add("-D" + k + "=" + System.getProperty(k)));
        cmd.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                ShardqCommand.class.getName(),
                "demo-consumer",
                "--index",
                Integer.toString(index)));
        cmd.addAll(connection.asArguments());
        Path log = Files.createTempFile("shardq-demo-consumer-" + index + "-", ".log");
        Process p = new ProcessBuilder(cmd)
                .redirectError(log.toFile())
                .redirectOutput(ProcessBuilder.Redirect.PIPE)
                .start();
        Consumer c = new Consumer(index, p, log);
        all.add(c);
        Thread reader = new Thread(() -> read(c), "shardq-demo-consumer-" + index + "-out");
        reader.setDaemon(true);
        reader.start();
        return c;
    }

    private static void read(Consumer c) {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(c.process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("READY")) {
                    c.ready.countDown();
                } else if (line.startsWith("STATS ")) {
                    String[] f = line.split(" ");
                    c.processed = Long.parseLong(f[1]);
                    c.hits = Long.parseLong(f[2]);
                    c.misses = Long.parseLong(f[3]);
                }
            }
        } catch (IOException | RuntimeException e) {
            // the process is gone (killed): its last report stands
        }
    }

    /** True once every consumer started says it is ready; one that exited first is an error. */
    boolean ready() {
        for (Consumer c : all) {
            if (c.ready.getCount() > 0) {
                if (!c.process.isAlive()) {
                    throw new IllegalStateException("demo consumer " + c.describe() + " exited with code "
                            + c.process.exitValue() + " before it was ready: " + tail(c.log));
                }
                return false;
            }
        }
        return true;
    }

    /** How many consumers started so far said they are ready. */
    long readyCount() {
        return all.stream().filter(c -> c.ready.getCount() == 0).count();
    }

    /** Why the consumers are not ready after {@code limit}: the first one's log. */
    IllegalStateException notReady(Duration limit) {
        Consumer c =
                all.stream().filter(x -> x.ready.getCount() > 0).findFirst().orElse(all.get(0));
        return new IllegalStateException(
                "demo consumer " + c.describe() + " was not ready within " + limit + ": " + tail(c.log));
    }

    /** kill -9 of the busiest live consumer, and a new one in its place; says what happened. */
    String killOne(long atNanos) throws IOException, InterruptedException {
        Consumer victim = all.stream()
                .filter(c -> !c.killed && c.process.isAlive())
                .max(java.util.Comparator.comparingLong(c -> c.processed)) // the busiest: likely mid-transaction
                .orElseThrow(() -> new IllegalStateException("no demo consumer is alive to kill"));
        victim.killed = true;
        victim.process.destroyForcibly(); // SIGKILL: no shutdown hook, no rollback sent, mid-transaction
        victim.process.waitFor(30, TimeUnit.SECONDS);
        int next = all.stream().mapToInt(c -> c.index).max().orElse(0) + 1;
        Consumer replacement = start(next);
        return String.format(
                Locale.ROOT,
                "consumer %s killed with kill -9 at %.1f s after %s orders; consumer %s started in its place",
                victim.describe(),
                atNanos / 1e9,
                Format.count(victim.processed),
                replacement.describe());
    }

    /** One line per consumer for the live view. */
    List<String> lines() {
        List<String> lines = new ArrayList<>();
        for (Consumer c : all) {
            String state = c.killed ? "killed" : c.process.isAlive() ? "running" : "exited " + c.process.exitValue();
            lines.add("#" + c.index + " pid " + c.process.pid() + " " + state + ", " + Format.count(c.processed)
                    + " orders");
        }
        return lines;
    }

    long hits() {
        return all.stream().mapToLong(c -> c.hits).sum();
    }

    long misses() {
        return all.stream().mapToLong(c -> c.misses).sum();
    }

    /** Asks every live consumer to stop after its transaction in hand, then waits for them. */
    void stopAll(Duration limit) throws InterruptedException {
        for (Consumer c : all) {
            if (c.process.isAlive()) {
                try {
                    OutputStream in = c.process.getOutputStream();
                    in.write("STOP\n".getBytes(StandardCharsets.UTF_8));
                    in.flush();
                } catch (IOException e) {
                    // it is exiting already
                }
            }
        }
        long deadline = System.nanoTime() + limit.toNanos();
        for (Consumer c : all) {
            c.process.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
        // one still busy past the limit is killed: its transaction rolls back, its order stays queued
        for (Consumer c : all) {
            if (c.process.isAlive()) {
                c.process.destroyForcibly();
                c.process.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    @Override
    public void close() {
        for (Consumer c : all) {
            if (c.process.isAlive()) {
                c.process.destroyForcibly();
            }
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return lines.isEmpty()
                    ? "(nothing on its stderr, " + log + ")"
                    : String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size())) + " (" + log + ")";
        } catch (IOException e) {
            return "(its log " + log + " cannot be read: " + e + ")";
        }
    }
}

package io.shardq.perf;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * ShardQ instances in other JVMs that run part of a step's load ({@code perf queue --instances
 * N}): each a {@link QueuePeer} process with its own connection factory, so the step measures N
 * instances of the fleet on one queue, as N application servers would be.
 *
 * <p>Protocol, one line each way, driven only by the runner's thread: the peer prints {@code
 * READY} once its producers and consumers run; {@code COUNTS} is answered with {@code COUNTS
 * <enqueued> <dequeued>} (cumulative since the peer started); {@code LATENCIES} with {@code
 * LATENCIES <base64>} (the peer's latency histogram since the previous {@code LATENCIES},
 * compressed); {@code STOP} makes it stop its workers, close its instance and print {@code DONE}.
 * A peer whose parent dies sees its standard input close and stops the same way.
 *
 * <p>Send stamps are epoch microseconds anchored on each JVM's {@code currentTimeMillis}, so
 * latencies of messages that cross processes carry up to about a millisecond of anchoring error.
 */
final class PeerInstances implements AutoCloseable {
    static final PeerInstances NONE = new PeerInstances();
    private static final Duration READY_LIMIT = Duration.ofMinutes(2);

    private final List<Peer> peers = new ArrayList<>();

    private static final class Peer {
        final int instance;
        final Process process;
        final BufferedReader out;
        final PrintWriter in;
        final Path log;

        Peer(int instance, Process process, Path log) {
            this.instance = instance;
            this.process = process;
            this.log = log;
            this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            this.in = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
        }

        String ask(String request, String answerPrefix) throws IOException {
            in.println(request);
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith(answerPrefix)) {
                    return line.substring(answerPrefix.length()).trim();
                }
            }
            throw new IOException("perf peer instance " + instance + " (pid " + process.pid()
                    + ") exited before answering " + request + ": " + tail(log));
        }
    }

    private PeerInstances() {}

    /**
     * Starts one peer JVM per entry of {@code threadsPerPeer}, each running that many producers and
     * as many consumers on {@code queue}, and waits until every one says it is ready. The peers use
     * this JVM's class path, {@code -Dshardq.*} settings and environment, plus {@code settings}.
     */
    static PeerInstances start(String queue, Settings base, List<Integer> threadsPerPeer, Map<String, String> settings)
            throws IOException {
        PeerInstances all = new PeerInstances();
        try {
            for (int i = 0; i < threadsPerPeer.size(); i++) {
                all.peers.add(launch(i + 2, queue, base.withThreads(threadsPerPeer.get(i)), settings));
            }
            for (Peer p : all.peers) {
                p.ask("", "READY"); // an empty line asks nothing; the peer prints READY once running
            }
            return all;
        } catch (IOException | RuntimeException e) {
            all.close();
            throw e;
        }
    }

    private static Peer launch(int instance, String queue, Settings s, Map<String, String> settings)
            throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        System.getProperties().stringPropertyNames().stream()
                .filter(k -> k.startsWith("shardq.") && !settings.containsKey(k))
                .sorted()
                .forEach(k -> cmd.add("-D" + k + "=" + System.getProperty(k)));
        settings.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
        cmd.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                QueuePeer.class.getName(),
                queue,
                Integer.toString(s.threads()),
                Integer.toString(s.payloadBytes()),
                Integer.toString(s.batchSize()),
                Boolean.toString(s.unsafe())));
        Path log = Files.createTempFile("shardq-perf-peer-" + instance + "-", ".log");
        Process p = new ProcessBuilder(cmd)
                .redirectError(log.toFile())
                .redirectOutput(ProcessBuilder.Redirect.PIPE)
                .start();
        return new Peer(instance, p, log);
    }

    boolean isEmpty() {
        return peers.isEmpty();
    }

    /** Each peer's cumulative {enqueued, dequeued}, in instance order (instance 2, 3, ...). */
    List<long[]> counts() {
        List<long[]> out = new ArrayList<>();
        for (Peer p : peers) {
            try {
                String[] f = p.ask("COUNTS", "COUNTS").split(" ");
                out.add(new long[] {Long.parseLong(f[0]), Long.parseLong(f[1])});
            } catch (IOException | RuntimeException e) {
                throw new IllegalStateException("cannot read the counts of perf peer instance " + p.instance, e);
            }
        }
        return out;
    }

    /** The peers' latencies since the previous call, added into {@code into}. */
    void addLatencies(Histogram into) {
        for (Peer p : peers) {
            try {
                byte[] raw = Base64.getDecoder().decode(p.ask("LATENCIES", "LATENCIES"));
                into.add(Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(raw), 0));
            } catch (IOException | DataFormatException | RuntimeException e) {
                throw new IllegalStateException("cannot read the latencies of perf peer instance " + p.instance, e);
            }
        }
    }

    /** Encodes {@code h} as {@link #addLatencies} reads it. */
    static String encode(Histogram h) {
        ByteBuffer buffer = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int n = h.encodeIntoCompressedByteBuffer(buffer);
        return Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(buffer.array(), n));
    }

    /** Stops every peer (each closes its instance), killing one that does not stop within 30 s. */
    @Override
    public void close() {
        for (Peer p : peers) {
            p.in.println("STOP");
            p.in.close();
        }
        for (Peer p : peers) {
            try {
                if (!p.process.waitFor(30, TimeUnit.SECONDS)) {
                    p.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                p.process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        peers.clear();
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** Writes a protocol line from a peer and flushes it. */
    static void reply(Writer w, String line) throws IOException {
        w.write(line);
        w.write('\n');
        w.flush();
    }
}

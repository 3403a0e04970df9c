package io.shardq.broker.testing;

import io.shardq.broker.BrokerProperty;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A JVM of its own running a test main class on this test's class path, for the fault tests that
 * kill an instance: start it, wait for the line that says it got where it should, kill it.
 */
public final class ChildJvm implements AutoCloseable {
    private final Process process;
    private final BufferedReader out;

    private ChildJvm(Process process) {
        this.process = process;
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    /** Starts {@code main} with {@code args}; its standard error is merged into its output. */
    public static ChildJvm start(Class<?> main, String... args) throws IOException {
        return start(List.of(), main, args);
    }

    /**
     * Starts {@code main} with JVM options (e.g. {@code -Xmx256m}) and {@code args}; its standard
     * error is merged into its output.
     */
    public static ChildJvm start(List<String> jvmOptions, Class<?> main, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmOptions);
        String shared = System.getProperty(TestDatabase.SHARED_SENDS_PROPERTY);
        if (shared != null) { // the child's broker reads its settings from system properties
            cmd.add("-D" + BrokerProperty.COMMIT_SHARED_SENDS.key() + "=" + shared);
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        cmd.addAll(List.of(args));
        return new ChildJvm(new ProcessBuilder(cmd).redirectErrorStream(true).start());
    }

    /**
     * The first output line starting with {@code prefix}, waiting at most two minutes; {@code
     * "exited"} when the JVM ended without printing one.
     */
    public String awaitLine(String prefix) throws Exception {
        return awaitLine(prefix, java.time.Duration.ofMinutes(2));
    }

    /**
     * The first output line starting with {@code prefix}, waiting at most {@code limit}; {@code
     * "exited"} when the JVM ended without printing one.
     */
    public String awaitLine(String prefix, java.time.Duration limit) throws Exception {
        return CompletableFuture.supplyAsync(() -> {
                    try {
                        String l;
                        while ((l = out.readLine()) != null) {
                            if (l.startsWith(prefix)) {
                                return l;
                            }
                        }
                        return "exited";
                    } catch (IOException e) {
                        return e.toString();
                    }
                })
                .get(limit.toMillis(), TimeUnit.MILLISECONDS);
    }

    public long pid() {
        return process.pid();
    }

    /** SIGKILL: nothing of the child cleans up after itself. */
    public void kill() throws InterruptedException {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        kill();
    }
}

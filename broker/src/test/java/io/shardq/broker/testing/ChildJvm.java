package io.shardq.broker.testing;

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
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                main.getName()));
        cmd.addAll(List.of(args));
        return new ChildJvm(new ProcessBuilder(cmd).redirectErrorStream(true).start());
    }

    /**
     * The first output line starting with {@code prefix}, waiting at most two minutes; {@code
     * "exited"} when the JVM ended without printing one.
     */
    public String awaitLine(String prefix) throws Exception {
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
                .get(2, TimeUnit.MINUTES);
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

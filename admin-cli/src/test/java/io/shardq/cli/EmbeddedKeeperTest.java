package io.shardq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shardq process (a JVM of its own, as a user runs it) with the embedded default: the first
 * command starts a keeper that leaves the server running, the next command finds the same server,
 * {@code shardq stop} stops it, and an idle keeper stops it by itself. Everything in a temporary
 * $HOME; waits are on deadlines, never on elapsed time.
 */
class EmbeddedKeeperTest {
    @TempDir
    Path home;

    record Result(int exit, String out, String err) {}

    Result shardq(Map<String, String> extraEnv, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                ShardqCommand.class.getName()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.startsWith("SHARDQ_"));
        env.put("HOME", home.toString());
        env.putAll(extraEnv);
        Path out = Files.createTempFile(home, "out", ".txt");
        Path err = Files.createTempFile(home, "err", ".txt");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertThat(p.waitFor(5, TimeUnit.MINUTES))
                .as("shardq %s finished", String.join(" ", args))
                .isTrue();
        return new Result(
                p.exitValue(),
                Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    Path dataDir() {
        return home.resolve(".shardq").resolve("pgdata");
    }

    long postmasterPid() throws IOException {
        return Long.parseLong(
                Files.readAllLines(dataDir().resolve("postmaster.pid")).get(0).strip());
    }

    @AfterEach
    void noKeeperLeftBehind() throws Exception {
        Optional<ProcessHandle> keeper = EmbeddedKeeper.running(dataDir());
        if (keeper.isPresent()) {
            shardq(Map.of(), "stop");
            keeper.get().destroyForcibly();
        }
    }

    @Test
    void theServer_staysUpBetweenCommands_underHome_andStopEndsIt() throws Exception {
        Result first = shardq(Map.of(), "queue", "create", "kept", "--shards", "1");
        assertThat(first.exit()).as(first.err()).isZero();
        // the data directory follows $HOME (issue 24)
        assertThat(dataDir().resolve("PG_VERSION")).exists();
        Optional<ProcessHandle> keeper = EmbeddedKeeper.running(dataDir());
        assertThat(keeper).as("a keeper runs after the command").isPresent();
        long postmaster = postmasterPid();
        assertThat(ProcessHandle.of(postmaster).map(ProcessHandle::isAlive)).contains(true);

        Result stats = shardq(Map.of(), "queue", "stats", "kept");
        assertThat(stats.exit()).as(stats.err()).isZero();
        assertThat(stats.out()).contains("queue kept");
        assertThat(postmasterPid())
                .as("the same server answered the second command")
                .isEqualTo(postmaster);
        assertThat(EmbeddedKeeper.running(dataDir()).map(ProcessHandle::pid))
                .contains(keeper.get().pid());

        Result stop = shardq(Map.of(), "stop");
        assertThat(stop.exit()).as(stop.err()).isZero();
        assertThat(stop.out()).startsWith("stopped the embedded PostgreSQL (data " + dataDir() + ")");
        assertThat(keeper.get().isAlive()).isFalse();
        assertThat(ProcessHandle.of(postmaster).map(ProcessHandle::isAlive).orElse(false))
                .isFalse();

        Result again = shardq(Map.of(), "stop");
        assertThat(again.exit()).isZero();
        assertThat(again.out()).contains("is not kept running by the CLI: nothing to stop");

        // an idle keeper stops the server by itself (same data directory: one initdb for both parts)
        Result idle = shardq(Map.of(EmbeddedKeeper.IDLE_ENV, "1s"), "status");
        assertThat(idle.exit()).as(idle.err()).isZero();
        // (the keeper may stop it before this reads anything: its own log says why it stopped)
        Path log = EmbeddedKeeper.logFile(dataDir());
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (!Files.exists(log)
                || !Files.readString(log).contains("no client for 1 s: stopping")
                || EmbeddedKeeper.running(dataDir()).isPresent()
                || StopCommand.postmasterAlive(dataDir())) {
            assertThat(System.nanoTime())
                    .as("the idle keeper stopped the server")
                    .isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    @Test
    void aBadIdleTime_isRefusedByName() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> EmbeddedKeeper.idle("soon"))
                .hasMessageContaining("SHARDQ_EMBEDDED_IDLE is \"soon\"");
        assertThat(EmbeddedKeeper.idle(null)).isEqualTo(EmbeddedKeeper.DEFAULT_IDLE);
        assertThat(EmbeddedKeeper.idle("0").isZero()).isTrue();
    }
}

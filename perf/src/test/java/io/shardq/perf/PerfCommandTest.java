package io.shardq.perf;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class PerfCommandTest {
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return PerfCommand.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
    }

    @Test
    void help_listsEveryScenario() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString())
                .contains("queue")
                .contains("mixed          users running a weighted transaction mix")
                .contains("topic          publishers and durable subscriptions")
                .contains("cache-putall   threads writing putAll batches")
                .contains("cache-read     random reads of a key/value cache");
    }

    @Test
    void cacheHelp_showsEveryOptionWithItsDefault() {
        assertThat(run("cache-putall", "--help")).isZero();
        assertThat(out.toString().replaceAll("\\s+", " "))
                .contains("--threads", "--entries", "--batch", "--value-bytes", "--runs", "--out")
                .contains("default: 20", "default: 100000", "default: 200", "default: 3");
        assertThat(run("cache-read", "--help")).isZero();
        assertThat(out.toString().replaceAll("\\s+", " ").replace(", ", ","))
                .contains("--threads", "--entries", "--sizes", "--scale-threads", "--warmup", "--duration")
                .contains("default: 1,8", "default: 1000,10000,100000,1000000");
    }

    @Test
    void cache_rejectsBadOptions_beforeTouchingTheDatabase() {
        assertThat(run("cache-putall", "--batch", "0")).isEqualTo(2);
        assertThat(err.toString()).contains("batch 0 is invalid: expected 1 to 10,000 entries");
        assertThat(run("cache-read", "--sizes", "10,0")).isEqualTo(2);
        assertThat(err.toString()).contains("entries 0 is invalid: expected 1 to 6,415,240");
    }

    @Test
    void mixedHelp_showsEveryOptionWithItsDefault() {
        assertThat(run("mixed", "--help")).isZero();
        assertThat(out.toString().replaceAll("\\s+", " ").replace(", ", ","))
                .contains("--workload", "--stages", "--stage-seconds", "--warmup", "--out", "--unsafe")
                .contains("default: 4,8,16,32", "default: 20", "default: 5");
    }

    @Test
    void mixed_rejectsABadWorkloadFile_namingTheLine_beforeTouchingTheDatabase(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("w.workload");
        Files.writeString(file, "accounts = 10\nsend1 heavy send 1\n");
        assertThat(run("mixed", "--workload", file.toString())).isEqualTo(2);
        assertThat(err.toString()).contains(file + " line 2: weight of template send1 \"heavy\" is invalid");
    }

    @Test
    void mixed_rejectsAStageOfNoUsers() {
        assertThat(run("mixed", "--stages", "2,0")).isEqualTo(2);
        assertThat(err.toString()).contains("stages [2, 0] are invalid: expected user counts from 1 to");
    }

    @Test
    void queueHelp_showsEveryOptionWithItsDefault() {
        assertThat(run("queue", "--help")).isZero();
        assertThat(out.toString().replaceAll("\\s+", " ").replace(", ", ","))
                .contains("--threads", "--payload", "--batch", "--shards", "--warmup", "--duration")
                .contains("--non-persistent", "--unsafe", "--out", "--systems")
                .contains("default: 4", "default: 512", "default: 10", "default: 8", "default: 5", "default: 20")
                .contains("default: shardq,ceiling,naive")
                .contains("ceiling2 (each producer on its own connection: multi-row INSERT,then COMMIT,per batch:"
                        + " two round trips");
    }

    @Test
    void queue_rejectsAnUnknownSystem_namingTheKnownOnes() {
        assertThat(run("queue", "--systems", "ceiling,rabbit")).isEqualTo(2);
        assertThat(err.toString()).contains("--systems rabbit is unknown").contains("ceiling, ceiling2, naive, shardq");
    }

    @Test
    void queue_rejectsAPayloadTooSmallForTheStamp() {
        assertThat(run("queue", "--payload", "8")).isEqualTo(2);
        assertThat(err.toString()).contains("payload 8 is invalid: expected at least 16 bytes");
    }

    @Test
    void queue_saysASystemIsNotAvailableYet_andStops_whenNothingElseAsked() {
        CommandLine cli = new CommandLine(new QueueCommand(withoutShardq()));
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        assertThat(cli.execute("--systems", "shardq")).isEqualTo(2);
        assertThat(out.toString()).contains("shardq: not available yet");
        assertThat(err.toString()).contains("none of the systems asked for is available");
    }

    @Test
    void scenario_runsShardqAndBothReferences_byDefault() {
        QueueCommand cmd = new QueueCommand();
        new CommandLine(cmd).parseArgs();
        List<String> notes = new ArrayList<>();
        assertThat(cmd.scenario(notes).systems()).containsExactly("shardq", "ceiling", "naive");
        assertThat(notes).isEmpty();
    }

    @Test
    void scenario_keepsTheOthers_whenShardqIsNotRegistered() {
        QueueCommand cmd = new QueueCommand(withoutShardq());
        CommandLine cli = new CommandLine(cmd);
        cli.parseArgs("--threads", "1,2,4", "--duration", "3", "--warmup", "0", "--non-persistent", "--unsafe");
        List<String> notes = new ArrayList<>();
        Scenario s = cmd.scenario(notes);
        assertThat(s.systems()).containsExactly("ceiling", "naive");
        assertThat(s.threads()).containsExactly(1, 2, 4);
        assertThat(s.duration()).isEqualTo(Duration.ofSeconds(3));
        assertThat(s.base().persistent()).isFalse();
        assertThat(s.base().unsafe()).isTrue();
        assertThat(s.base().payloadBytes()).isEqualTo(512);
        assertThat(notes).singleElement(InstanceOfAssertFactories.STRING).startsWith("shardq: not available yet");
    }

    /** A registry as it was before ShardQ was registered: the references only. */
    private static SystemRegistry withoutShardq() {
        return new SystemRegistry()
                .register(CeilingSystem.NAME, CeilingSystem::new)
                .register(NaiveSkipLockedSystem.NAME, NaiveSkipLockedSystem::new);
    }

    @Test
    void config_growsThePool_toOneConnectionPerWorkerAndSome() {
        assertThat(PerfDatabase.config(16).getInt(io.shardq.broker.BrokerProperty.POOL_SIZE))
                .isGreaterThanOrEqualTo(36);
    }

    @Test
    void queueInstances_refusesFewerThreadsThanInstances_andAsync() {
        assertThat(run("queue", "--instances", "2", "--threads", "1,4")).isEqualTo(2);
        assertThat(err.toString()).contains("--threads 1 is invalid with --instances 2");
        assertThat(run("queue", "--instances", "2", "--async")).isEqualTo(2);
        assertThat(err.toString()).contains("cannot be combined with --async");
        assertThat(run("queue", "--instances", "0")).isEqualTo(2);
        assertThat(err.toString()).contains("--instances 0 is invalid: expected 1 to 16");
    }
}

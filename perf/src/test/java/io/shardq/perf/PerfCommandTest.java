package io.shardq.perf;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class PerfCommandTest {
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return PerfCommand.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
    }

    @Test
    void help_listsQueue_andTheComingScenariosAsComing() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString())
                .contains("queue")
                .contains("mixed          coming")
                .contains("topic          coming")
                .contains("cache-putall   coming")
                .contains("cache-read     coming");
    }

    @Test
    void comingScenarios_areNotCommands() {
        for (String coming : new String[] {"mixed", "topic", "cache-putall", "cache-read"}) {
            assertThat(run(coming)).as(coming).isNotZero();
        }
        assertThat(err.toString()).contains("Unmatched argument");
    }

    @Test
    void queueHelp_showsEveryOptionWithItsDefault() {
        assertThat(run("queue", "--help")).isZero();
        assertThat(out.toString().replaceAll("\\s+", " ").replace(", ", ","))
                .contains("--threads", "--payload", "--batch", "--shards", "--warmup", "--duration")
                .contains("--non-persistent", "--unsafe", "--out", "--systems")
                .contains("default: 4", "default: 512", "default: 10", "default: 8", "default: 5", "default: 20")
                .contains("default: shardq,ceiling,naive");
    }

    @Test
    void queue_rejectsAnUnknownSystem_namingTheKnownOnes() {
        assertThat(run("queue", "--systems", "ceiling,rabbit")).isEqualTo(2);
        assertThat(err.toString()).contains("--systems rabbit is unknown").contains("ceiling, naive, shardq");
    }

    @Test
    void queue_rejectsAPayloadTooSmallForTheStamp() {
        assertThat(run("queue", "--payload", "8")).isEqualTo(2);
        assertThat(err.toString()).contains("payload 8 is invalid: expected at least 16 bytes");
    }

    @Test
    void queue_saysShardqIsNotAvailableYet_andStops_whenNothingElseAsked() {
        assertThat(run("queue", "--systems", "shardq")).isEqualTo(2);
        assertThat(out.toString()).contains("shardq: not available yet");
        assertThat(err.toString()).contains("none of the systems asked for is available");
    }

    @Test
    void scenario_keepsTheOthers_whenShardqIsNotRegistered() {
        QueueCommand cmd = new QueueCommand();
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

    @Test
    void config_growsThePool_toOneConnectionPerWorkerAndSome() {
        assertThat(QueueCommand.config(16).getInt(io.shardq.broker.BrokerProperty.POOL_SIZE))
                .isGreaterThanOrEqualTo(36);
    }
}

package io.shardq.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.perf.Workload.Step;
import io.shardq.perf.Workload.Step.Kind;
import io.shardq.perf.Workload.Template;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkloadParserTest {

    @Test
    void defaults_areTheFourTemplatesOfTheBrief_withTheirWeights() {
        Workload w = Workload.defaults();

        assertThat(w.source()).isEqualTo("default (built in)");
        assertThat(w.templates())
                .extracting(Template::name)
                .containsExactly("send10-update", "receive10-insert", "browse", "send1");
        assertThat(w.templates()).extracting(Template::weight).containsExactly(40, 40, 10, 10);
        assertThat(w.totalWeight()).isEqualTo(100);
        assertThat(w.templates().get(0).steps())
                .containsExactly(new Step(Kind.SEND, 10), new Step(Kind.UPDATE_ACCOUNT, 1));
        assertThat(w.templates().get(1).steps())
                .containsExactly(new Step(Kind.RECEIVE, 10), new Step(Kind.INSERT_AUDIT, 1));
        assertThat(w.templates().get(2).steps()).containsExactly(new Step(Kind.BROWSE, 100));
        assertThat(w.templates().get(3).steps()).containsExactly(new Step(Kind.SEND, 1));
        assertThat(w.accounts()).isEqualTo(10_000);
        assertThat(w.payloadBytes()).isEqualTo(512);
        assertThat(w.shards()).isEqualTo(8);
        assertThat(w.prefill()).isEqualTo(1000);
        assertThat(w.receiveWaitMillis()).isEqualTo(100);
    }

    @Test
    void parse_readsSettingsAndTemplates_ignoringCommentsAndBlankLines() {
        Workload w = WorkloadParser.parse(
                """
                # a comment line
                accounts = 250      # trailing comment
                PAYLOAD=64

                order-in   3   send 2, update-account, send 1
                settle     1   receive 5,insert-audit
                peek       2   BROWSE 7
                """,
                "w.txt");

        assertThat(w.accounts()).isEqualTo(250);
        assertThat(w.payloadBytes()).isEqualTo(64);
        assertThat(w.shards()).as("not set: default").isEqualTo(8);
        assertThat(w.templates()).extracting(Template::name).containsExactly("order-in", "settle", "peek");
        Template order = w.templates().get(0);
        assertThat(order.countOf(Kind.SEND)).isEqualTo(3);
        assertThat(order.stepsOf(Kind.UPDATE_ACCOUNT)).isEqualTo(1);
        assertThat(order.describe()).isEqualTo("send 2, update-account, send 1");
        assertThat(w.templates().get(2).steps()).containsExactly(new Step(Kind.BROWSE, 7));
        assertThat(w.stepsOf(Kind.INSERT_AUDIT, new long[] {5, 7, 9})).isEqualTo(7);
        assertThat(w.stepsOf(Kind.SEND, new long[] {5, 7, 9}))
                .as("steps, not messages")
                .isEqualTo(10);
    }

    @Test
    void parse_namesTheLineAndTheBadValue_ofAWeightThatIsNotANumber() {
        assertThatThrownBy(() -> WorkloadParser.parse("accounts = 10\n\nsend1 ten send 1\n", "w.txt"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("w.txt line 3: weight of template send1 \"ten\" is invalid:"
                        + " expected a whole number from 1 to 1,000,000");
    }

    @Test
    void parse_rejectsEachKindOfMistake_namingItsLine() {
        assertError("a 0 send 1", "line 1: weight of template a \"0\" is invalid");
        assertError("a 1 send 1\nb 1 fly 3", "line 2: step \"fly 3\" of template b is unknown: expected send N,");
        assertError("a 1 send", "line 1: step \"send\" of template a is invalid: expected send N, N from 1 to 1000");
        assertError("a 1 send 1001", "line 1: count of step send \"1001\" is invalid");
        assertError("a 1 update-account 2", "line 1: step \"update-account 2\" of template a is invalid");
        assertError("a 1 send 1,, send 2", "line 1: template a has an empty step");
        assertError("a 1", "line 1: template a has no steps");
        assertError("a", "line 1: template a has no weight");
        assertError("A! 1 send 1", "line 1: template name \"A!\" is invalid");
        assertError("a 1 send 1\n\na 2 send 2", "line 3: template \"a\" is already defined on line 1");
        assertError("colour = 3\na 1 send 1", "line 1: setting \"colour\" is unknown: expected one of accounts,");
        assertError(
                "shards = 0\na 1 send 1", "line 1: value of shards \"0\" is invalid: expected a whole number from 1");
        assertError("prefill = 1\nprefill = 2\na 1 send 1", "line 2: setting prefill is already set on line 1");
        assertError("# only comments\n\n", "w.txt: no template is defined");
    }

    @Test
    void load_namesAMissingFile(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("nope.workload");
        assertThatThrownBy(() -> Workload.load(missing)).hasMessage("workload file " + missing + " does not exist");

        Path file = dir.resolve("w.workload");
        Files.writeString(file, "x 1 send 1\ny 1 receive x\n");
        assertThatThrownBy(() -> Workload.load(file)).hasMessageStartingWith(file + " line 2: count of step receive");
    }

    private static void assertError(String text, String expected) {
        assertThatThrownBy(() -> WorkloadParser.parse(text, "w.txt"))
                .as(text)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("w.txt")
                .hasMessageContaining(expected);
    }
}

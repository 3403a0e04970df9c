package io.shardq.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The embedded data directory follows $HOME, or $SHARDQ_HOME when set (issue 24). */
class BrokerConfigPathTest {
    final Map<String, String> env = new HashMap<>();
    final Map<String, String> props = new HashMap<>();

    Path dataDir() {
        return new BrokerConfig.Builder(env::get, props::get).build().getPath(BrokerProperty.EMBEDDED_DATA_DIR);
    }

    @Test
    void theDefault_isUnderHome_fromTheEnvironment_notJavasUserHome() {
        env.put("HOME", "/tmp/someone-else");
        assertThat(dataDir()).isEqualTo(Path.of("/tmp/someone-else/.shardq/pgdata"));
    }

    @Test
    void withoutHome_javasUserHomeIsUsed() {
        assertThat(dataDir()).isEqualTo(Path.of(System.getProperty("user.home"), ".shardq", "pgdata"));
    }

    @Test
    void shardqHome_replacesDotShardq_fromTheEnvironmentOrASystemProperty() {
        env.put("HOME", "/tmp/someone-else");
        env.put("SHARDQ_HOME", "/srv/shardq");
        assertThat(dataDir()).isEqualTo(Path.of("/srv/shardq/pgdata"));
        props.put("shardq.home", "/opt/q");
        assertThat(dataDir()).isEqualTo(Path.of("/opt/q/pgdata"));
    }

    @Test
    void anExplicitDataDir_winsOverBoth_andItsTildeIsHome() {
        env.put("HOME", "/tmp/h");
        env.put("SHARDQ_HOME", "/srv/shardq");
        env.put("SHARDQ_EMBEDDED_DATA_DIR", "~/pg");
        assertThat(dataDir()).isEqualTo(Path.of("/tmp/h/pg"));
        env.put("SHARDQ_EMBEDDED_DATA_DIR", "/data/pg");
        assertThat(dataDir()).isEqualTo(Path.of("/data/pg"));
    }
}

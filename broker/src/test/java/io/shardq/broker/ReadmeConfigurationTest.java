package io.shardq.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The README's configuration table must list exactly the settings of {@link BrokerProperty}. */
class ReadmeConfigurationTest {

    @Test
    void readmeTable_matchesBrokerProperty() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        String table = readme.substring(
                readme.indexOf("<!-- configuration-table"), readme.indexOf("<!-- /configuration-table -->"));
        List<String> expected = new ArrayList<>();
        for (BrokerProperty p : BrokerProperty.values()) {
            String def = p.defaultValue().isEmpty() ? "(empty)" : "`" + p.defaultValue() + "`";
            expected.add("| `" + p.key() + "` | `" + p.envName() + "` | " + def + " | " + p.description() + " |");
        }
        List<String> actual = table.lines().filter(l -> l.startsWith("| `")).toList();
        assertThat(actual).containsExactlyElementsOf(expected);
    }
}

package io.shardq.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.shardq.broker.BrokerProperty;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * IDEs complete every ShardQ setting: the jar's {@code META-INF/spring-configuration-metadata.json}
 * (the configuration processor's output, with the additional metadata merged in) has an entry for
 * each {@link BrokerProperty}, with its type, default and description, and for the starter's own
 * {@code shardq.spring.*} settings.
 */
class ConfigurationMetadataTest {
    private static Map<String, JsonNode> metadata() throws Exception {
        try (InputStream in =
                ConfigurationMetadataTest.class.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("spring-configuration-metadata.json in the jar").isNotNull();
            JsonNode root = new ObjectMapper().readTree(in);
            Map<String, JsonNode> byName = new HashMap<>();
            root.get("properties").forEach(p -> byName.put(p.get("name").asText(), p));
            return byName;
        }
    }

    @Test
    void everyBrokerProperty_hasAMetadataEntry_withTypeDefaultAndDescription() throws Exception {
        Map<String, JsonNode> byName = metadata();
        for (BrokerProperty p : BrokerProperty.values()) {
            JsonNode entry = byName.get(p.key());
            assertThat(entry).as("metadata entry of %s", p.key()).isNotNull();
            assertThat(entry.get("type").asText()).as("type of %s", p.key()).isEqualTo(MetadataJson.type(p));
            assertThat(entry.get("description").asText())
                    .as("description of %s", p.key())
                    .startsWith(p.description())
                    .contains(p.envName());
            if (p.defaultValue().isEmpty()) {
                assertThat(entry.has("defaultValue"))
                        .as("default of %s", p.key())
                        .isFalse();
            } else {
                assertThat(entry.get("defaultValue").asText())
                        .as("default of %s", p.key())
                        .isEqualTo(p.defaultValue());
            }
        }
    }

    @Test
    void theStartersOwnSettings_haveMetadataEntries() throws Exception {
        Map<String, JsonNode> byName = metadata();
        for (String key : new String[] {"shardq.spring.join-transactions", "shardq.spring.listener-transactions"}) {
            assertThat(byName.get(key)).as(key).isNotNull();
            assertThat(byName.get(key).get("type").asText()).isEqualTo("java.lang.Boolean");
            assertThat(byName.get(key).get("defaultValue").asBoolean()).isTrue();
            assertThat(byName.get(key).get("description").asText()).isNotBlank();
        }
    }

    @Test
    void additionalMetadata_isUpToDateWithBrokerProperty() throws Exception {
        assertThat(Files.readString(MetadataJson.FILE))
                .as(
                        "%s is generated from BrokerProperty: regenerate it with MetadataJson (see its javadoc)",
                        MetadataJson.FILE)
                .isEqualTo(MetadataJson.generate());
    }
}

package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.jms.Destination;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.Queue;
import jakarta.jms.Topic;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ShardQDestinationTest {

    @Test
    void equals_comparesKindAndName() {
        assertThat(new ShardQQueue("orders")).isEqualTo(new ShardQQueue("orders"));
        assertThat(new ShardQQueue("orders")).hasSameHashCodeAs(new ShardQQueue("orders"));
        assertThat(new ShardQTopic("orders")).isEqualTo(new ShardQTopic("orders"));
        assertThat(new ShardQQueue("orders")).isNotEqualTo(new ShardQQueue("other"));
        assertThat((Destination) new ShardQQueue("orders")).isNotEqualTo(new ShardQTopic("orders"));
    }

    @Test
    void names_areReturnedByJmsGetters() {
        assertThat(new ShardQQueue("orders").getQueueName()).isEqualTo("orders");
        assertThat(new ShardQTopic("prices").getTopicName()).isEqualTo("prices");
    }

    @Test
    void toString_namesKindAndName() {
        assertThat(new ShardQQueue("orders")).hasToString("ShardQQueue[orders]");
        assertThat(new ShardQTopic("prices")).hasToString("ShardQTopic[prices]");
    }

    @Test
    void constructor_throwsIllegalArgument_whenNameNullOrEmpty() {
        assertThatThrownBy(() -> new ShardQQueue(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ShardQTopic("")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void encode_thenDecode_returnsEqualDestination() throws Exception {
        for (ShardQDestination d : new ShardQDestination[] {new ShardQQueue("a:b"), new ShardQTopic("t")}) {
            assertThat(ShardQDestination.decode(ShardQDestination.encode(d))).isEqualTo(d);
        }
        assertThat(ShardQDestination.encode(new ShardQQueue("q"))).isEqualTo("queue:q");
        assertThat(ShardQDestination.encode(new ShardQTopic("t"))).isEqualTo("topic:t");
        assertThat(ShardQDestination.encode(null)).isNull();
        assertThat(ShardQDestination.decode(null)).isNull();
    }

    @Test
    void encode_usesPublicName_forOtherProvidersDestinations() throws Exception {
        Queue queue = () -> "their-queue";
        Topic topic = () -> "their-topic";

        assertThat(ShardQDestination.encode(queue)).isEqualTo("queue:their-queue");
        assertThat(ShardQDestination.encode(topic)).isEqualTo("topic:their-topic");
    }

    @Test
    void encode_throwsInvalidDestination_whenNeitherQueueNorTopic() {
        Destination odd = new Destination() {};

        assertThatThrownBy(() -> ShardQDestination.encode(odd)).isInstanceOf(InvalidDestinationException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "orders", "queue:", ":x", "table:x"})
    void decode_throwsIllegalArgument_whenFormUnknown(String encoded) {
        assertThatThrownBy(() -> ShardQDestination.decode(encoded))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expected queue:NAME, topic:NAME, temp-queue:NAME or temp-topic:NAME");
    }

    @Test
    void temporaryDestinations_stayTemporary_throughTheWireForm() throws Exception {
        var queue = new ShardQTemporaryQueue("tmp.1.abc", null);
        var topic = new ShardQTemporaryTopic("tmp.1.def", null);

        assertThat(ShardQDestination.encode(queue)).isEqualTo("temp-queue:tmp.1.abc");
        assertThat(ShardQDestination.encode(topic)).isEqualTo("temp-topic:tmp.1.def");
        assertThat(ShardQDestination.decode("temp-queue:tmp.1.abc"))
                .isInstanceOf(jakarta.jms.TemporaryQueue.class)
                .isEqualTo(queue)
                .isNotEqualTo(new ShardQQueue("tmp.1.abc"));
        assertThat(ShardQDestination.decode("temp-topic:tmp.1.def"))
                .isInstanceOf(jakarta.jms.TemporaryTopic.class)
                .isEqualTo(topic);
    }

    @Test
    void serialization_keepsEquality_forJndiBinding() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(new ShardQQueue("orders"));
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            assertThat(in.readObject()).isEqualTo(new ShardQQueue("orders"));
        }
    }
}

package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageNotWriteableException;
import jakarta.jms.ObjectMessage;
import java.io.Serializable;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Date;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ShardQObjectMessageTest {

    /** An application class: not on the default allow-list. */
    static final class Order implements Serializable {
        private static final long serialVersionUID = 1L;
        final String id;

        Order(String id) {
            this.id = id;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Order other && other.id.equals(id);
        }

        @Override
        public int hashCode() {
            return id.hashCode();
        }
    }

    /** Serializable itself, but with a field that is not. */
    static final class Broken implements Serializable {
        private static final long serialVersionUID = 1L;

        @SuppressWarnings("unused")
        final Object notSerializable = new Object();
    }

    private static final String ORDER = Order.class.getName();

    /** The message as a consumer gets it: through the codec, with the given allow-list. */
    private static ShardQObjectMessage received(Serializable body, ObjectMessageAllowList allowList) throws Exception {
        ShardQObjectMessage sent = new ShardQObjectMessage();
        sent.setObject(body);
        return (ShardQObjectMessage)
                MessageCodec.fromBroker(MessageCodec.toBroker(sent), new ShardQQueue("q"), 1, allowList);
    }

    @Test
    void getObject_roundTripsArrayListOfStrings_withDefaultAllowList() throws Exception {
        ArrayList<String> list = new ArrayList<>(List.of("a", "b"));

        ObjectMessage received = received(list, ObjectMessageAllowList.defaults());

        assertThat(received.getObject()).isEqualTo(list).isInstanceOf(ArrayList.class);
    }

    @ParameterizedTest
    @MethodSource("allowedByDefault")
    void getObject_accepts_jdkValuesAndCollections(Serializable value) throws Exception {
        assertThat(received(value, ObjectMessageAllowList.defaults()).getObject())
                .isEqualTo(value);
    }

    static Stream<Serializable> allowedByDefault() {
        return Stream.of(
                "text",
                42,
                7L,
                1.5,
                2.5f,
                (short) 3,
                (byte) 4,
                'c',
                true,
                new BigDecimal("12.345"),
                new BigInteger("123456789012345678901234567890"),
                new Date(1_000),
                UUID.fromString("6b1c3f8e-0000-4000-8000-000000000001"),
                new LinkedList<>(List.of(1, 2)),
                new HashMap<>(Map.of("k", List.of(1L))),
                new LinkedHashMap<>(Map.of("k", "v")),
                new TreeMap<>(Map.of("b", 2, "a", 1)),
                new HashSet<>(Set.of("x")),
                new LinkedHashSet<>(List.of("x", "y")),
                new TreeSet<>(Set.of(3, 1, 2)),
                (Serializable) List.of("immutable", "list"),
                (Serializable) Map.of("immutable", 1),
                (Serializable) Set.of("immutable"),
                (Serializable) Arrays.asList("a", "b"),
                (Serializable) Collections.unmodifiableList(new ArrayList<>(List.of(1))),
                (Serializable) Collections.emptyMap(),
                (Serializable) Collections.singletonList("one"),
                new String[] {"a", "b"},
                new long[] {1, 2},
                new Integer[][] {{1}, {2}});
    }

    @Test
    void getObject_acceptsPrimitiveAndStringArrays() throws Exception {
        Object ints =
                received(new int[] {1, 2, 3}, ObjectMessageAllowList.defaults()).getObject();
        Object strings =
                received(new String[] {"a"}, ObjectMessageAllowList.defaults()).getObject();

        assertThat(ints).isEqualTo(new int[] {1, 2, 3});
        assertThat(strings).isEqualTo(new String[] {"a"});
    }

    @Test
    void getObject_refusesApplicationClass_namingItAndHowToAllowIt() throws Exception {
        ObjectMessage received = received(new Order("o-1"), ObjectMessageAllowList.defaults());

        assertThatThrownBy(received::getObject)
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining("class " + ORDER + " is not on the ObjectMessage allow-list")
                .hasMessageContaining("allowClass(\"" + ORDER + "\")")
                .hasMessageContaining("allowPackage(\"io.shardq.jms\")");
    }

    @Test
    void getObject_acceptsApplicationClass_whenAddedToAllowList() throws Exception {
        ObjectMessageAllowList allowList = ObjectMessageAllowList.defaults().allowClass(ORDER);

        assertThat(received(new Order("o-1"), allowList).getObject()).isEqualTo(new Order("o-1"));
    }

    @Test
    void getObject_acceptsApplicationClass_whenPackageAllowed() throws Exception {
        ObjectMessageAllowList allowList = ObjectMessageAllowList.defaults().allowPackage("io.shardq");

        assertThat(received(new Order("o-1"), allowList).getObject()).isEqualTo(new Order("o-1"));
    }

    @Test
    void getObject_refusesDisallowedClass_nestedInHashMap() throws Exception {
        HashMap<String, Object> map = new HashMap<>();
        map.put("fine", "string");
        map.put("order", new Order("o-2"));

        ObjectMessage received = received(map, ObjectMessageAllowList.defaults());

        assertThatThrownBy(received::getObject)
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining(ORDER);
    }

    @Test
    void getObject_refusesDisallowedClass_nestedInImmutableListAndArray() throws Exception {
        ObjectMessage inList = received((Serializable) List.of(new Order("a")), ObjectMessageAllowList.defaults());
        ObjectMessage inArray = received(new Order[] {new Order("b")}, ObjectMessageAllowList.defaults());

        assertThatThrownBy(inList::getObject)
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining(ORDER);
        assertThatThrownBy(inArray::getObject)
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining(ORDER);
    }

    @Test
    void isBodyAssignableTo_isFalse_whenClassRefused() throws Exception {
        ObjectMessage received = received(new Order("o"), ObjectMessageAllowList.defaults());

        assertThat(received.isBodyAssignableTo(Serializable.class)).isFalse();
        assertThatThrownBy(() -> received.getBody(Serializable.class)).isInstanceOf(MessageFormatException.class);
    }

    @Test
    void getBody_returnsObject_whenAssignable_andThrowsOtherwise() throws Exception {
        ObjectMessage received = received(new ArrayList<>(List.of("a")), ObjectMessageAllowList.defaults());

        assertThat(received.getBody(List.class)).containsExactly("a");
        assertThat(received.isBodyAssignableTo(Serializable.class)).isTrue();
        assertThat(received.isBodyAssignableTo(String.class)).isFalse();
        assertThatThrownBy(() -> received.getBody(String.class))
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining("java.util.ArrayList");
    }

    @Test
    void getObject_returnsNull_whenNoObject() throws Exception {
        ShardQObjectMessage message = new ShardQObjectMessage();

        assertThat(message.getObject()).isNull();
        assertThat(message.getBody(String.class)).isNull();
        assertThat(message.isBodyAssignableTo(String.class)).isTrue();
        assertThat(received(null, ObjectMessageAllowList.defaults()).getObject())
                .isNull();
    }

    @Test
    void setObject_takesSnapshot_soLaterChangesDoNotShow() throws Exception {
        ShardQObjectMessage message = new ShardQObjectMessage();
        ArrayList<String> list = new ArrayList<>(List.of("a"));

        message.setObject(list);
        list.add("b");

        assertThat(message.getObject()).isEqualTo(List.of("a"));
    }

    @Test
    void getObject_returnsNewCopy_eachCall() throws Exception {
        ShardQObjectMessage message = new ShardQObjectMessage();
        message.setObject(new ArrayList<>(List.of("a")));

        assertThat(message.getObject()).isNotSameAs(message.getObject());
    }

    @Test
    void getObject_usesAllowList_alsoOnLocallyCreatedMessage() throws Exception {
        ShardQObjectMessage message = new ShardQObjectMessage();
        message.setObject(new Order("x"));

        assertThatThrownBy(message::getObject).isInstanceOf(MessageFormatException.class);
        message.setAllowList(ObjectMessageAllowList.defaults().allowClass(Order.class));
        assertThat(message.getObject()).isEqualTo(new Order("x"));
    }

    @Test
    void setObject_throwsMessageFormat_whenSerialisationFails() {
        ShardQObjectMessage message = new ShardQObjectMessage();

        assertThatThrownBy(() -> message.setObject(new Broken()))
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining(Broken.class.getName())
                .hasMessageContaining("java.lang.Object");
    }

    @Test
    void setObject_throwsMessageNotWriteable_whenReceived_untilClearBody() throws Exception {
        ShardQObjectMessage received = received("x", ObjectMessageAllowList.defaults());

        assertThatThrownBy(() -> received.setObject("y")).isInstanceOf(MessageNotWriteableException.class);
        received.clearBody();
        assertThat(received.getObject()).isNull();
        received.setObject("y");
        assertThat(received.getObject()).isEqualTo("y");
    }

    @Test
    void getObject_throwsMessageFormat_whenBytesAreNotSerialisation() {
        ShardQObjectMessage message = new ShardQObjectMessage();
        message.loadSerialized(new byte[] {1, 2, 3});

        assertThatThrownBy(message::getObject)
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining("cannot be deserialised");
    }
}

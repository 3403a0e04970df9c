package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ObjectMessageAllowListTest {

    private final ObjectMessageAllowList defaults = ObjectMessageAllowList.defaults();

    @Test
    void defaults_allowJdkValueAndCollectionClasses() {
        assertThat(defaults.allows(String.class)).isTrue();
        assertThat(defaults.allows(Integer.class)).isTrue();
        assertThat(defaults.allows(java.math.BigDecimal.class)).isTrue();
        assertThat(defaults.allows(java.util.HashMap.class)).isTrue();
        assertThat(defaults.allows(java.util.UUID.class)).isTrue();
        assertThat(defaults.allows(List.of(1, 2).getClass())).isTrue();
        assertThat(defaults.allows(java.util.Collections.emptyList().getClass()))
                .isTrue();
        assertThat(defaults.allows(int[][].class)).isTrue();
        assertThat(defaults.allows(String[].class)).isTrue();
    }

    @Test
    void defaults_refuseOtherClasses_includingOtherJdkOnes() {
        assertThat(defaults.allows("com.acme.Order")).isFalse();
        assertThat(defaults.allows(java.io.File.class)).isFalse();
        assertThat(defaults.allows(java.util.concurrent.ConcurrentHashMap.class))
                .isFalse();
        assertThat(defaults.allows(java.util.PriorityQueue.class)).isFalse();
        assertThat(defaults.allows(Thread.class)).isFalse();
        assertThat(defaults.allows(java.io.File[].class)).isFalse();
    }

    @Test
    void allowClass_addsOneClass_andLeavesOriginalUnchanged() {
        ObjectMessageAllowList list = defaults.allowClass("com.acme.Order");

        assertThat(list.allows("com.acme.Order")).isTrue();
        assertThat(list.allows("com.acme.Order$Line")).isFalse();
        assertThat(list.allows("com.acme.Invoice")).isFalse();
        assertThat(defaults.allows("com.acme.Order")).isFalse();
        assertThat(list.allows(String.class)).isTrue();
    }

    @Test
    void allowPackage_coversSubpackages_butNotSimilarNames() {
        for (String spelling : List.of("com.acme", "com.acme.", "com.acme.*")) {
            ObjectMessageAllowList list = defaults.allowPackage(spelling);

            assertThat(list.allows("com.acme.Order")).as(spelling).isTrue();
            assertThat(list.allows("com.acme.events.Shipped$Line")).as(spelling).isTrue();
            assertThat(list.allows("com.acmecorp.Order")).as(spelling).isFalse();
            assertThat(list.allows("com.Acme")).as(spelling).isFalse();
        }
    }

    @Test
    void allowPackage_throwsIllegalArgument_whenEmpty() {
        assertThatThrownBy(() -> defaults.allowPackage(" ")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> defaults.allowPackage("*")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> defaults.allowClass("")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void allow_parsesCommaSeparatedSetting() {
        ObjectMessageAllowList list = defaults.allow(" com.acme.Order , org.example.* ,, net.x.Outer$* ");

        assertThat(list.allows("com.acme.Order")).isTrue();
        assertThat(list.allows("com.acme.Other")).isFalse();
        assertThat(list.allows("org.example.deep.Thing")).isTrue();
        assertThat(list.allows("net.x.Outer$Inner")).isTrue();
        assertThat(list.allows("net.x.Other")).isFalse();
    }

    @Test
    void allow_star_allowsEverything() {
        ObjectMessageAllowList list = defaults.allow("*");

        assertThat(list.allows("com.acme.Anything")).isTrue();
        assertThat(list.toString()).contains("*");
    }

    private static byte[] serialize(Object o) throws Exception {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
            out.writeObject(o);
        }
        return bytes.toByteArray();
    }

    /** Sets nested {@code depth} deep, two per level: the classic deserialisation time bomb. */
    private static java.util.Set<Object> nestedSets(int depth) {
        java.util.Set<Object> root = new java.util.HashSet<>();
        java.util.Set<Object> s1 = root;
        java.util.Set<Object> s2 = new java.util.HashSet<>();
        for (int i = 0; i < depth; i++) {
            java.util.Set<Object> t1 = new java.util.HashSet<>();
            java.util.Set<Object> t2 = new java.util.HashSet<>();
            t1.add("x" + i);
            s1.add(t1);
            s1.add(t2);
            s2.add(t1);
            s2.add(t2);
            s1 = t1;
            s2 = t2;
        }
        return root;
    }

    @Test
    void deepNesting_isRefused_namingTheLimit_whateverTheClasses() throws Exception {
        byte[] bomb = serialize(nestedSets(40));
        for (ObjectMessageAllowList list : List.of(defaults, defaults.allow("*"))) {
            assertThatThrownBy(() -> list.deserialize(bomb))
                    .isInstanceOf(jakarta.jms.MessageFormatException.class)
                    .hasMessageContaining("nest")
                    .hasMessageContaining("limit is 16");
        }
        assertThat(defaults.deserialize(serialize(nestedSets(4)))).isInstanceOf(java.util.Set.class);
        assertThat(defaults.withLimits(100, 1_000_000, 1000).deserialize(serialize(nestedSets(10))))
                .isInstanceOf(java.util.Set.class);
    }

    @Test
    void arraysAndReferences_areBounded() throws Exception {
        byte[] big = serialize(new long[100_000]);
        assertThatThrownBy(() -> defaults.withLimits(16, 1_000_000, 1000).deserialize(big))
                .isInstanceOf(jakarta.jms.MessageFormatException.class)
                .hasMessageContaining("array of 100000 elements, the limit is 1000");
        assertThat((long[]) defaults.deserialize(big)).hasSize(100_000);
        java.util.List<Integer> many = new java.util.ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            many.add(i);
        }
        assertThatThrownBy(() -> defaults.withLimits(16, 100, 100_000).deserialize(serialize(many)))
                .isInstanceOf(jakarta.jms.MessageFormatException.class)
                .hasMessageContaining("more than 100 objects");
        assertThatThrownBy(() -> defaults.withLimits(0, 1, 1)).isInstanceOf(IllegalArgumentException.class);
    }
}

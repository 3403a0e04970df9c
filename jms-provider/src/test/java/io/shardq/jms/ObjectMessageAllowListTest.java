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
}

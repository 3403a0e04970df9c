package io.shardq.broker;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Without shardq.instance.name, an instance is named after its program (issue 24). */
class InstanceNameTest {
    @Test
    void aMainClass_givesItsSimpleName_thePidAndTheHost() {
        assertThat(InstanceStart.defaultInstanceName(
                        "io.shardq.examples.orders.OrderServiceApplication --x", "6488@vm"))
                .isEqualTo("OrderServiceApplication (pid 6488 on vm)");
    }

    @Test
    void aJar_givesItsFileName() {
        assertThat(InstanceStart.defaultInstanceName("examples/order-service/target/order-service.jar", "12@host"))
                .isEqualTo("order-service.jar (pid 12 on host)");
    }

    @Test
    void nothingKnown_stillNamesTheProcess() {
        assertThat(InstanceStart.defaultInstanceName("", "12")).isEqualTo("java (pid 12)");
    }
}

package io.shardq.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.BrokerProperty;
import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

/**
 * An application's instance is named after it (issue 24: the console showed {@code 6488@vm}):
 * {@code spring.application.name} with the process id and host, unless {@code
 * shardq.instance.name} says otherwise.
 */
class InstanceNameSettingTest {
    @Test
    void springApplicationName_namesTheInstance_withPidAndHost() {
        MockEnvironment env = new MockEnvironment().withProperty("spring.application.name", "order-service");
        String name = EnvironmentSettings.brokerConfig(env, null).get(BrokerProperty.INSTANCE_NAME);
        assertThat(name).matches("order-service \\(pid \\d+ on .+\\)");
        assertThat(EnvironmentSettings.instanceName("order-service", "6488@vm"))
                .isEqualTo("order-service (pid 6488 on vm)");
    }

    @Test
    void shardqInstanceName_winsOverTheApplicationName() {
        MockEnvironment env = new MockEnvironment()
                .withProperty("spring.application.name", "order-service")
                .withProperty("shardq.instance.name", "orders-eu-1");
        assertThat(EnvironmentSettings.brokerConfig(env, null).get(BrokerProperty.INSTANCE_NAME))
                .isEqualTo("orders-eu-1");
    }

    @Test
    void withoutEither_theEngineNamesIt() {
        assertThat(EnvironmentSettings.brokerConfig(new MockEnvironment(), null).get(BrokerProperty.INSTANCE_NAME))
                .isEmpty();
    }
}

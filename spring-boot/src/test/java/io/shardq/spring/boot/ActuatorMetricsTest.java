package io.shardq.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.shardq.broker.Broker;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import io.shardq.metrics.ShardQMBeans;
import io.shardq.metrics.ShardQMetrics;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import javax.management.ObjectName;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.export.prometheus.PrometheusMetricsExportAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.autoconfigure.jms.JmsAutoConfiguration;
import org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jms.core.JmsTemplate;

/**
 * Issue 13: "the Spring Boot starter registers them so /actuator/prometheus shows them". An
 * application with the actuator's Prometheus registry and {@code shardq-metrics} on its class path
 * gets the {@code shardq_*} meters with no setting; the values follow a known workload; the
 * MBeans come with {@code spring.jmx.enabled=true} and go with the context.
 */
@PgTest
class ActuatorMetricsTest {
    private static ApplicationContextRunner app(TestDatabase db) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class,
                        TransactionAutoConfiguration.class,
                        ShardQAutoConfiguration.class,
                        JmsAutoConfiguration.class,
                        MetricsAutoConfiguration.class,
                        CompositeMeterRegistryAutoConfiguration.class,
                        PrometheusMetricsExportAutoConfiguration.class))
                .withPropertyValues(
                        "spring.datasource.url=" + db.jdbcUrl(),
                        "spring.datasource.username=" + db.user(),
                        "spring.datasource.password=" + db.password(),
                        "spring.datasource.hikari.maximum-pool-size=4",
                        "shardq.pool.size=4");
    }

    @Test
    void prometheusScrape_showsTheShardqMeters_ofAKnownWorkload(TestDatabase db) {
        try (Broker admin = Broker.start(db.brokerConfig().build())) {
            admin.admin().queues().create("metered", QueueOptions.DEFAULTS.withShards(2));
        }
        app(db).run(ctx -> {
            assertThat(ctx).hasNotFailed();
            assertThat(ctx).hasSingleBean(ShardQMetrics.class);
            assertThat(ctx).doesNotHaveBean(ShardQMBeans.Registration.class); // JMX only when asked
            JmsTemplate jms = ctx.getBean(JmsTemplate.class);
            for (int i = 0; i < 5; i++) {
                jms.convertAndSend("metered", "order " + i);
            }
            jms.setReceiveTimeout(10_000);
            assertThat(jms.receiveAndConvert("metered")).isEqualTo("order 0");
            assertThat(jms.receiveAndConvert("metered")).isEqualTo("order 1");

            PrometheusMeterRegistry prometheus = ctx.getBean(PrometheusMeterRegistry.class);
            // counters of this instance at once; the backlog once the 5 s snapshot is renewed
            assertThat(prometheus.scrape())
                    .contains("shardq_destination_enqueued_messages_total{destination=\"metered\",kind=\"queue\"} 5.0")
                    .contains("shardq_destination_dequeued_messages_total{destination=\"metered\",kind=\"queue\"} 2.0");
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(500))
                    .untilAsserted(() -> assertThat(prometheus.scrape())
                            .contains(
                                    "shardq_destination_backlog_messages{destination=\"metered\",kind=\"queue\"} 3.0"));
        });
    }

    @Test
    void withJmxEnabled_theMBeansAreRegistered_untilTheContextCloses(TestDatabase db) throws Exception {
        ObjectName[] seen = new ObjectName[1];
        app(db).withPropertyValues("spring.jmx.enabled=true").run(ctx -> {
            assertThat(ctx).hasNotFailed();
            ShardQMBeans.Registration jmx = ctx.getBean(ShardQMBeans.Registration.class);
            assertThat(jmx.names()).isNotEmpty();
            seen[0] = jmx.names().iterator().next();
            assertThat(ManagementFactory.getPlatformMBeanServer().isRegistered(seen[0]))
                    .isTrue();
        });
        assertThat(ManagementFactory.getPlatformMBeanServer().isRegistered(seen[0]))
                .isFalse();
    }
}

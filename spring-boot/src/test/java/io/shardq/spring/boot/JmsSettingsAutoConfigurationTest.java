package io.shardq.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.ObjectMessage;
import java.util.List;
import java.util.Vector;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.autoconfigure.jms.JmsAutoConfiguration;
import org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jms.core.JmsTemplate;

/**
 * The JMS settings from Spring Boot properties: {@code shardq.jms.client-id} gives every connection
 * of the starter's factory that client id (setClientID refused), {@code
 * shardq.jms.object-message.allow} widens the ObjectMessage allow-list without code.
 */
@PgTest
class JmsSettingsAutoConfigurationTest {
    private static ApplicationContextRunner runner(TestDatabase db) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class,
                        TransactionAutoConfiguration.class,
                        ShardQAutoConfiguration.class,
                        JmsAutoConfiguration.class))
                .withPropertyValues(
                        "spring.datasource.url=" + db.jdbcUrl(),
                        "spring.datasource.username=" + db.user(),
                        "spring.datasource.password=" + db.password(),
                        "spring.datasource.hikari.maximum-pool-size=4",
                        "shardq.pool.size=4");
    }

    @Test
    void theClientIdAndAllowListProperties_configureTheStartersFactory(TestDatabase db) {
        runner(db)
                .withPropertyValues(
                        "shardq.jms.client-id=spring-app", "shardq.jms.object-message.allow=java.util.Vector")
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    TransactionAwareShardQConnectionFactory factory =
                            ctx.getBean(TransactionAwareShardQConnectionFactory.class);
                    assertThat(factory.target().getClientID()).isEqualTo("spring-app");
                    try (Connection c = ctx.getBean(ConnectionFactory.class).createConnection()) {
                        assertThat(c.getClientID()).isEqualTo("spring-app");
                        assertThatThrownBy(() -> c.setClientID("other"))
                                .isInstanceOf(jakarta.jms.IllegalStateException.class);
                    }
                    JmsTemplate jms = ctx.getBean(JmsTemplate.class);
                    jms.setReceiveTimeout(30_000);
                    jms.send("spring.settings.object", s -> s.createObjectMessage(new Vector<>(List.of("v"))));
                    ObjectMessage m = (ObjectMessage) jms.receive("spring.settings.object");
                    assertThat(m).isNotNull();
                    assertThat(m.getObject()).isEqualTo(new Vector<>(List.of("v")));
                });
    }

    @Test
    void withoutTheProperties_noClientId_andVectorIsRefused(TestDatabase db) {
        runner(db).run(ctx -> {
            assertThat(ctx).hasNotFailed();
            assertThat(ctx.getBean(TransactionAwareShardQConnectionFactory.class)
                            .target()
                            .getClientID())
                    .isNull();
            JmsTemplate jms = ctx.getBean(JmsTemplate.class);
            jms.setReceiveTimeout(30_000);
            jms.send("spring.settings.default", s -> s.createObjectMessage(new Vector<>(List.of("v"))));
            ObjectMessage m = (ObjectMessage) jms.receive("spring.settings.default");
            assertThatThrownBy(m::getObject)
                    .isInstanceOf(jakarta.jms.MessageFormatException.class)
                    .hasMessageContaining("shardq.jms.object-message.allow=java.util.Vector");
        });
    }

    @Test
    void aBadAllowPattern_failsTheContext_namingTheSetting(TestDatabase db) {
        runner(db)
                .withPropertyValues("shardq.jms.object-message.allow=maxdepth=x")
                .run(ctx -> {
                    assertThat(ctx).hasFailed();
                    assertThat(ctx.getStartupFailure())
                            .hasStackTraceContaining("setting shardq.jms.object-message.allow");
                });
    }
}

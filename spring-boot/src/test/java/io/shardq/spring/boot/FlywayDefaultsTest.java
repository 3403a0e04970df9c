package io.shardq.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jms.core.JmsTemplate;

/**
 * A whole Spring Boot application (every auto-configuration on the class path, Boot's Flyway among
 * them, since ShardQ brings Flyway) on a database whose default schema already holds the
 * application's tables: it starts, because {@link FlywayDefaults} keeps Boot's Flyway off when the
 * application has no migrations of its own; with migrations of its own Boot's Flyway runs them.
 */
@PgTest
class FlywayDefaultsTest {
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {}

    private static ConfigurableApplicationContext start(TestDatabase db, String... properties) {
        return new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE)
                .properties("spring.datasource.url=" + db.jdbcUrl(), "spring.datasource.username=" + db.user())
                .properties("spring.datasource.password=" + (db.password() == null ? "" : db.password()))
                .properties("spring.datasource.hikari.maximum-pool-size=4", "shardq.pool.size=4")
                .properties(properties)
                .run();
    }

    private static void aTableOfTheApplication(TestDatabase db) throws Exception {
        try (Connection c = db.connect();
                Statement st = c.createStatement()) {
            st.execute("create table if not exists public.customers (id bigint primary key)");
        }
    }

    @Test
    void anApplicationWithoutMigrations_startsOnANonEmptySchema_withBootsFlywayOff(TestDatabase db) throws Exception {
        aTableOfTheApplication(db);
        try (ConfigurableApplicationContext ctx = start(db)) {
            assertThat(ctx.getEnvironment().getProperty("spring.flyway.enabled"))
                    .isEqualTo("false");
            assertThat(ctx.containsBean("flywayInitializer")).isFalse();
            JmsTemplate jms = ctx.getBean(JmsTemplate.class);
            jms.setReceiveTimeout(10_000);
            jms.convertAndSend("flyway.q", "hello");
            assertThat(jms.receiveAndConvert("flyway.q")).isEqualTo("hello");
        }
    }

    @Test
    void anApplicationWithItsOwnMigrations_getsThemRunByBootsFlyway(TestDatabase db) throws Exception {
        aTableOfTheApplication(db);
        try (ConfigurableApplicationContext ctx = start(
                db,
                "spring.flyway.locations=classpath:app-migration",
                "spring.flyway.baseline-on-migrate=true",
                "spring.flyway.baseline-version=0")) {
            assertThat(ctx.containsBean("flywayInitializer")).isTrue();
            JdbcTemplate sql = ctx.getBean(JdbcTemplate.class);
            assertThat(sql.queryForObject("select count(*) from public.app_orders", Long.class))
                    .isZero();
            // and ShardQ's own schema is ShardQ's: its history table is not the application's
            assertThat(sql.queryForObject("select count(*) from shardq.flyway_schema_history", Long.class))
                    .isPositive();
        }
    }

    @Test
    void anExplicitSetting_wins(TestDatabase db) throws Exception {
        // Boot's Flyway on, in a schema of its own (the default schema holds the other tests' tables)
        try (ConfigurableApplicationContext ctx =
                start(db, "spring.flyway.enabled=true", "spring.flyway.schemas=explicit_app")) {
            assertThat(ctx.containsBean("flywayInitializer")).isTrue();
            assertThat(ctx.getEnvironment().getPropertySources().contains(FlywayDefaults.SOURCE))
                    .isFalse();
        }
    }
}

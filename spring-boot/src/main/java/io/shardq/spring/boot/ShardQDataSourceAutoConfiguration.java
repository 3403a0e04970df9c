package io.shardq.spring.boot;

import io.shardq.broker.store.Database;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * The application's {@link DataSource} when it configured none ({@code spring.datasource.url} and
 * {@code spring.datasource.jndi-name} unset): a pool on {@code shardq.jdbc.url}, or else on the
 * embedded PostgreSQL, as Spring Boot gives an application an embedded database when it names
 * none. Without it Spring Boot would build a DataSource from the spring-jdbc and HikariCP that the
 * starter brings and fail at start ("Failed to determine a suitable driver class"). With it the
 * application's {@code JdbcTemplate}, its transactions and ShardQ's sessions share that
 * PostgreSQL, and sessions join the application's transactions as on any DataSource. An embedded
 * database on the class path (H2, HSQLDB) is not used: ShardQ's sessions can only join PostgreSQL.
 */
@AutoConfiguration(beforeName = "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration")
@ConditionalOnClass(DataSource.class)
@ConditionalOnMissingBean(DataSource.class)
@Conditional(ShardQDataSourceAutoConfiguration.NoDataSourceConfigured.class)
public class ShardQDataSourceAutoConfiguration {
    @Bean(destroyMethod = "close")
    Database shardQApplicationDatabase(Environment environment) {
        return Database.open(EnvironmentSettings.brokerConfig(environment, null), "shardq-spring-app");
    }

    /** The pool of {@link #shardQApplicationDatabase}, which closes it (and releases the embedded server). */
    @Bean(destroyMethod = "")
    DataSource dataSource(Database shardQApplicationDatabase) {
        return shardQApplicationDatabase.dataSource();
    }

    /** Matches when the application names no database of its own. */
    static final class NoDataSourceConfigured extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            Environment env = context.getEnvironment();
            for (String key : new String[] {"spring.datasource.url", "spring.datasource.jndi-name"}) {
                if (env.containsProperty(key)) {
                    return ConditionOutcome.noMatch(key + " is set: the application's own DataSource");
                }
            }
            return ConditionOutcome.match("no spring.datasource.url: ShardQ's PostgreSQL is the application's");
        }
    }
}

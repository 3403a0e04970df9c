package io.shardq.spring.boot;

import java.io.IOException;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.util.ClassUtils;

/**
 * Keeps Spring Boot's Flyway off when only ShardQ brought Flyway. ShardQ runs its own migrations
 * (schema {@code shardq}, from {@code io/shardq/sql/migration}); Flyway is on the class path
 * because of that, and with a DataSource Boot's {@code FlywayAutoConfiguration} would migrate the
 * application's default schema from {@code db/migration} and refuse to start on a non-empty one
 * that has no history table ("Found non-empty schema(s) public but no schema history table"). So
 * when the application says nothing ({@code spring.flyway.enabled} unset) and has no migration at
 * its Flyway locations ({@code spring.flyway.locations}, by default {@code classpath:db/migration}),
 * this sets {@code spring.flyway.enabled=false} as a default of the lowest precedence. An application
 * with migrations of its own there, or that sets the property, gets Boot's Flyway as always.
 */
public class FlywayDefaults implements EnvironmentPostProcessor, Ordered {
    private static final Logger LOG = LoggerFactory.getLogger(FlywayDefaults.class);
    static final String SOURCE = "shardq-flyway-defaults";

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment env, SpringApplication application) {
        ClassLoader loader = application.getClassLoader();
        if (env.containsProperty("spring.flyway.enabled")
                || !ClassUtils.isPresent("org.flywaydb.core.Flyway", loader)) {
            return;
        }
        String[] locations =
                env.getProperty("spring.flyway.locations", String[].class, new String[] {"classpath:db/migration"});
        PathMatchingResourcePatternResolver resolver = new PathMatchingResourcePatternResolver(loader);
        for (String location : locations) {
            String l = location.strip().replace("{vendor}", "postgresql");
            if (!l.startsWith("classpath:")) {
                return; // the file system or a cloud location: the application's own, leave Boot's Flyway on
            }
            try {
                for (Resource r : resolver.getResources("classpath*:" + l.substring("classpath:".length()) + "/**/*")) {
                    if (r.isReadable()) {
                        return; // the application has migrations of its own
                    }
                }
            } catch (IOException e) {
                return; // cannot tell: leave Boot's Flyway as it is
            }
        }
        env.getPropertySources().addLast(new MapPropertySource(SOURCE, Map.of("spring.flyway.enabled", "false")));
        LOG.debug(
                "ShardQ: Spring Boot's Flyway is off (no migrations at {}; ShardQ migrates its own schema):"
                        + " set spring.flyway.enabled=true to override",
                String.join(", ", locations));
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE; // after application.properties and the other sources are in
    }
}

package io.shardq.examples.orders;

import io.shardq.broker.testing.TestDatabase;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jms.core.JmsTemplate;

/** The order service started as an application would be, its DataSource on a test database. */
final class TestApp implements AutoCloseable {
    final ConfigurableApplicationContext context;
    final JdbcTemplate jdbc;
    final JmsTemplate jms;
    final Failures failures;

    TestApp(TestDatabase db, String... more) {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of(
                "--spring.datasource.url=" + db.jdbcUrl(),
                "--spring.datasource.username=" + db.user(),
                "--spring.datasource.password=" + db.password(),
                "--spring.datasource.hikari.maximum-pool-size=6",
                "--shardq.pool.size=6",
                "--spring.jms.listener.receive-timeout=200ms"));
        args.addAll(java.util.List.of(more));
        context = new SpringApplicationBuilder(OrderServiceApplication.class).run(args.toArray(String[]::new));
        jdbc = context.getBean(JdbcTemplate.class);
        failures = context.getBean(Failures.class);
        // the test's own template: outside any transaction its sends commit at once
        jms = new JmsTemplate(context.getBean(jakarta.jms.ConnectionFactory.class));
    }

    int orders(String id) {
        return jdbc.queryForObject("select count(*) from orders where id = ?", Integer.class, id);
    }

    /** The event of {@code orderId}, waiting up to {@code timeoutMillis}; null when none. */
    String event(String orderId, long timeoutMillis) throws Exception {
        jms.setReceiveTimeout(timeoutMillis);
        var m = (jakarta.jms.TextMessage) jms.receiveSelected(OrderService.EVENTS, "orderId = '" + orderId + "'");
        return m == null ? null : m.getText();
    }

    @Override
    public void close() {
        context.close();
    }
}

package io.shardq.examples.orders;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jms.core.JmsTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Records an order and publishes its event, in one transaction: the caller's (the listener's) or
 * its own ({@code @Transactional}, when called from elsewhere).
 */
@Service
public class OrderService {
    static final String ORDERS = "orders";
    static final String EVENTS = "order-events";

    private final JdbcTemplate jdbc;
    private final JmsTemplate jms;
    private final Failures failures;

    public OrderService(JdbcTemplate jdbc, JmsTemplate jms, Failures failures) {
        this.jdbc = jdbc;
        this.jms = jms;
        this.failures = failures;
    }

    @Transactional
    public void accept(String id, String item, int quantity) {
        jdbc.update("insert into orders (id, item, quantity, status) values (?, ?, ?, 'accepted')", id, item, quantity);
        jms.convertAndSend(EVENTS, "accepted " + id, m -> {
            m.setStringProperty("orderId", id);
            return m;
        });
        failures.afterSend(id); // the test's fault: after the SQL and the send, before the commit
    }
}

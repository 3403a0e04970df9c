package io.shardq.examples.orders;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * An order service on ShardQ and Spring Boot: {@link OrderListener} takes an order from the
 * {@code orders} queue, {@link OrderService} records it in the {@code orders} table and publishes an
 * {@code order-events} message. All three are one PostgreSQL transaction of the application's
 * DataSource, which the ShardQ starter's sessions join: either the order is consumed, the row
 * written and the event sent, or none of them happened and the order is delivered again.
 *
 * <p>Run it with {@code spring.datasource.url} (and user, password) pointing at PostgreSQL;
 * ShardQ creates its {@code shardq} schema there on start.
 */
@SpringBootApplication
public class OrderServiceApplication {
    public static void main(String[] args) {
        SpringApplication.run(OrderServiceApplication.class, args);
    }
}

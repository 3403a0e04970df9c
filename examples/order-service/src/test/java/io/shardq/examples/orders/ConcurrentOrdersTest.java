package io.shardq.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import jakarta.jms.TextMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Four listener threads take orders from the same shards while some transactions fail and roll
 * back: every order ends up exactly once in the table and exactly once as an event, and every
 * failed delivery came again.
 */
@PgTest
class ConcurrentOrdersTest {
    static final int ORDERS = 200;
    static TestApp app;

    @BeforeAll
    static void start(TestDatabase db) {
        app = new TestApp(
                db,
                "--spring.jms.listener.min-concurrency=4",
                "--spring.jms.listener.max-concurrency=4",
                "--shardq.default.shards=2");
    }

    @AfterAll
    static void stop() {
        app.close();
    }

    @Test
    void concurrentListeners_withRollbacks_eachOrderOnceInTheTable_andOnceAsAnEvent() throws Exception {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < ORDERS; i++) {
            String id = "c" + i;
            ids.add(id);
            if (i % 3 == 0) {
                app.failures.failAfterSend(id, 1);
            } else if (i % 5 == 0) {
                app.failures.failAfterListener(id, 1);
            }
        }
        for (int i = 0; i < ORDERS; i++) {
            app.jms.convertAndSend(OrderService.ORDERS, "c" + i + ",item,1");
        }
        await().atMost(Duration.ofSeconds(120))
                .until(() -> app.jdbc.queryForObject("select count(*) from orders", Integer.class) == ORDERS);
        assertThat(app.jdbc.queryForList("select id from orders", String.class))
                .containsExactlyInAnyOrderElementsOf(ids);

        List<String> events = new ArrayList<>();
        app.jms.setReceiveTimeout(10_000);
        while (events.size() < ORDERS) {
            TextMessage m = (TextMessage) app.jms.receive(OrderService.EVENTS);
            assertThat(m).as("event %d of %d", events.size() + 1, ORDERS).isNotNull();
            events.add(m.getText());
        }
        app.jms.setReceiveTimeout(500);
        assertThat(app.jms.receive(OrderService.EVENTS))
                .as("an event beyond one per order")
                .isNull();
        assertThat(events)
                .containsExactlyInAnyOrderElementsOf(
                        ids.stream().map(id -> "accepted " + id).toList());

        for (int i = 0; i < ORDERS; i++) {
            String id = "c" + i;
            int failed = (i % 3 == 0 || i % 5 == 0) ? 1 : 0;
            var deliveries = app.failures.deliveries(id);
            assertThat(deliveries).as("deliveries of %s", id).hasSize(1 + failed);
            assertThat(deliveries.get(deliveries.size() - 1).redelivered()).isEqualTo(failed == 1);
        }
        app.jms.setReceiveTimeout(500);
        assertThat(app.jms.receive(OrderService.ORDERS + ".DLQ")).isNull();
    }
}

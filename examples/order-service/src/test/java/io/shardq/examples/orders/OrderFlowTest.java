package io.shardq.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import io.shardq.examples.orders.Failures.Delivery;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The order service end to end on a real PostgreSQL: an order taken by the {@code @JmsListener}
 * (a container run by the application's DataSourceTransactionManager), the {@code orders} row and
 * the {@code order-events} message commit together or not at all.
 */
@PgTest
class OrderFlowTest {
    static TestApp app;

    @BeforeAll
    static void start(TestDatabase db) {
        app = new TestApp(db);
    }

    @AfterAll
    static void stop() {
        app.close();
    }

    @Test
    void order_withoutFailure_rowAndEventVisibleExactlyOnce() throws Exception {
        app.jms.convertAndSend(OrderService.ORDERS, "o1,widget,3");
        await().atMost(Duration.ofSeconds(30)).until(() -> app.orders("o1") == 1);
        assertThat(app.event("o1", 10_000)).isEqualTo("accepted o1");
        assertThat(app.event("o1", 500)).isNull();
        assertThat(app.failures.deliveries("o1")).containsExactly(new Delivery("o1", false, 1));
        assertThat(app.jdbc.queryForObject("select quantity from orders where id = 'o1'", Integer.class))
                .isEqualTo(3);
    }

    @Test
    void failureAfterTheSend_rollsBackRowAndEvent_andTheOrderIsDeliveredAgain() throws Exception {
        app.failures.failAfterSend("o2", 1);
        app.jms.convertAndSend(OrderService.ORDERS, "o2,gadget,1");
        await().atMost(Duration.ofSeconds(30)).until(() -> app.orders("o2") == 1);
        assertThat(app.failures.deliveries("o2"))
                .containsExactly(new Delivery("o2", false, 1), new Delivery("o2", true, 2));
        assertThat(app.event("o2", 10_000)).isEqualTo("accepted o2");
        assertThat(app.event("o2", 500)).as("the event of the failed attempt").isNull();
    }

    @Test
    void failureAfterTheSend_everyTime_nothingEverVisible_andTheOrderEndsInTheDeadLetterQueue() throws Exception {
        app.failures.failAfterSend("o3", 1_000);
        app.jms.convertAndSend(OrderService.ORDERS, "o3,gizmo,2");
        app.jms.setReceiveTimeout(60_000);
        var dead = (jakarta.jms.TextMessage) app.jms.receive(OrderService.ORDERS + ".DLQ");
        assertThat(dead.getText()).isEqualTo("o3,gizmo,2");
        // five deliveries (the queue's attempts), each rolled back with its row and its event
        assertThat(app.failures.deliveries("o3"))
                .extracting(Delivery::deliveryCount)
                .containsExactly(1, 2, 3, 4, 5);
        assertThat(app.failures.deliveries("o3"))
                .extracting(Delivery::redelivered)
                .containsExactly(false, true, true, true, true);
        assertThat(app.orders("o3")).isZero();
        assertThat(app.event("o3", 500)).isNull();
    }

    @Test
    void listenerException_rollsBackItsSqlAndTheConsumption_andTheMessageIsRedelivered() throws Exception {
        app.failures.failAfterListener("l1", 2);
        app.jms.convertAndSend(OrderService.ORDERS, "l1,sprocket,5");
        await().atMost(Duration.ofSeconds(30)).until(() -> app.orders("l1") == 1);
        assertThat(app.failures.deliveries("l1"))
                .containsExactly(
                        new Delivery("l1", false, 1), new Delivery("l1", true, 2), new Delivery("l1", true, 3));
        assertThat(app.event("l1", 10_000)).isEqualTo("accepted l1");
        assertThat(app.event("l1", 500)).isNull();
    }
}

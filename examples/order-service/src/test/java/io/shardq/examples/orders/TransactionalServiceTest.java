package io.shardq.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.jms.core.JmsTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A {@code @Transactional} method (DataSourceTransactionManager) that writes with JdbcTemplate and
 * sends with JmsTemplate: both or neither.
 */
@PgTest
class TransactionalServiceTest {
    static TestApp app;
    static OrderService service;

    @BeforeAll
    static void start(TestDatabase db) {
        app = new TestApp(db);
        service = app.context.getBean(OrderService.class);
    }

    @AfterAll
    static void stop() {
        app.close();
    }

    @Test
    void transactionalMethod_thatThrows_leavesNeitherRowNorEvent() throws Exception {
        app.failures.failAfterSend("s1", 1);
        assertThatThrownBy(() -> service.accept("s1", "widget", 1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("injected failure after the send of order s1");
        assertThat(app.orders("s1")).isZero();
        assertThat(app.event("s1", 1_000)).isNull();
    }

    @Test
    void transactionalMethod_thatReturns_commitsRowAndEvent() throws Exception {
        service.accept("s2", "widget", 2);
        assertThat(app.orders("s2")).isEqualTo(1);
        assertThat(app.event("s2", 10_000)).isEqualTo("accepted s2");
        assertThat(app.event("s2", 500)).isNull();
    }

    @Test
    void jmsRollbackInsideTheTransaction_rollsBackTheWholeTransaction() throws Exception {
        JmsTemplate jms = app.context.getBean(JmsTemplate.class);
        var tx = new TransactionTemplate(app.context.getBean(PlatformTransactionManager.class));
        assertThatThrownBy(() -> tx.executeWithoutResult(status -> {
                    app.jdbc.update("insert into orders values ('s3', 'x', 1, 'accepted')");
                    jms.execute(session -> {
                        session.createProducer(session.createQueue(OrderService.EVENTS))
                                .send(session.createTextMessage("never"));
                        session.rollback(); // a JMS rollback in a joined session: the Spring transaction rolls back
                        return null;
                    });
                }))
                .isInstanceOf(org.springframework.transaction.UnexpectedRollbackException.class);
        assertThat(app.orders("s3")).isZero();
    }
}

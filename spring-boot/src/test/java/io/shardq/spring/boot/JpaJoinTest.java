package io.shardq.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import jakarta.jms.ConnectionFactory;
import jakarta.persistence.Entity;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.domain.EntityScan;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.autoconfigure.jms.JmsAutoConfiguration;
import org.springframework.boot.autoconfigure.orm.jpa.HibernateJpaAutoConfiguration;
import org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.jms.config.DefaultJmsListenerContainerFactory;
import org.springframework.jms.config.SimpleJmsListenerEndpoint;
import org.springframework.jms.core.JmsTemplate;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.orm.jpa.SharedEntityManagerCreator;
import org.springframework.test.util.ReflectionTestUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** Under JPA's transaction manager (Hibernate), JMS work commits and rolls back with the entities. */
@PgTest
class JpaJoinTest {
    @Entity
    @Table(name = "jpa_order")
    public static class JpaOrder {
        @Id
        String id;

        int quantity;

        protected JpaOrder() {}

        JpaOrder(String id, int quantity) {
            this.id = id;
            this.quantity = quantity;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EntityScan(basePackageClasses = JpaOrder.class)
    static class Entities {}

    @Test
    void jpaTransaction_commitsOrRollsBackEntitiesAndMessagesTogether(TestDatabase db) {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        HibernateJpaAutoConfiguration.class,
                        TransactionAutoConfiguration.class,
                        ShardQAutoConfiguration.class,
                        JmsAutoConfiguration.class))
                .withUserConfiguration(Entities.class)
                .withPropertyValues(
                        "spring.datasource.url=" + db.jdbcUrl(),
                        "spring.datasource.username=" + db.user(),
                        "spring.datasource.password=" + db.password(),
                        "spring.datasource.hikari.maximum-pool-size=4",
                        "spring.jpa.hibernate.ddl-auto=create",
                        "shardq.pool.size=4")
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    PlatformTransactionManager tm = ctx.getBean(PlatformTransactionManager.class);
                    assertThat(tm).isInstanceOf(JpaTransactionManager.class);
                    EntityManager em = SharedEntityManagerCreator.createSharedEntityManager(
                            ctx.getBean(EntityManagerFactory.class));
                    JmsTemplate jms = ctx.getBean(JmsTemplate.class);
                    var tx = new TransactionTemplate(tm);

                    tx.executeWithoutResult(status -> {
                        em.persist(new JpaOrder("rolled-back", 1));
                        jms.convertAndSend("jpa.events", "rolled-back");
                        status.setRollbackOnly();
                    });
                    tx.executeWithoutResult(status -> {
                        em.persist(new JpaOrder("committed", 2));
                        jms.convertAndSend("jpa.events", "committed");
                    });

                    Long rows = tx.execute(
                            status -> em.createQuery("select count(o) from JpaJoinTest$JpaOrder o", Long.class)
                                    .getSingleResult());
                    assertThat(rows).isEqualTo(1);
                    JmsTemplate plain = new JmsTemplate(ctx.getBean(ConnectionFactory.class));
                    plain.setReceiveTimeout(10_000);
                    assertThat(plain.receiveAndConvert("jpa.events")).isEqualTo("committed");
                    plain.setReceiveTimeout(500);
                    assertThat(plain.receiveAndConvert("jpa.events")).isNull();

                    SimpleJmsListenerEndpoint e = new SimpleJmsListenerEndpoint();
                    e.setId("probe");
                    e.setDestination("jpa.probe");
                    e.setMessageListener(m -> {});
                    var container = ctx.getBean("jmsListenerContainerFactory", DefaultJmsListenerContainerFactory.class)
                            .createListenerContainer(e);
                    assertThat(ReflectionTestUtils.getField(container, "transactionManager"))
                            .isSameAs(tm);
                });
    }
}

package io.shardq.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.Session;
import java.nio.file.Path;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.autoconfigure.jms.JmsAutoConfiguration;
import org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jms.config.DefaultJmsListenerContainerFactory;
import org.springframework.jms.config.SimpleJmsListenerEndpoint;
import org.springframework.jms.core.JmsTemplate;
import org.springframework.test.util.ReflectionTestUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** What the starter configures, with and without an application DataSource, on a real PostgreSQL. */
@PgTest
class ShardQAutoConfigurationTest {
    private static ApplicationContextRunner withDataSource(TestDatabase db, String url) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class,
                        TransactionAutoConfiguration.class,
                        ShardQAutoConfiguration.class,
                        JmsAutoConfiguration.class))
                .withPropertyValues(
                        "spring.datasource.url=" + url,
                        "spring.datasource.username=" + db.user(),
                        "spring.datasource.password=" + db.password(),
                        "spring.datasource.hikari.maximum-pool-size=4",
                        "shardq.pool.size=4");
    }

    @Test
    void withoutDataSource_theApplicationAndShardqShareTheEmbeddedPostgres(@TempDir Path dataDir) {
        // the auto-configurations a Spring Boot application with the starter gets: spring-jdbc and HikariCP
        // are on its class path, so Boot's DataSourceAutoConfiguration runs too (and failed before
        // ShardQDataSourceAutoConfiguration gave it a DataSource: "Failed to determine a suitable driver class")
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        ShardQDataSourceAutoConfiguration.class,
                        DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class,
                        TransactionAutoConfiguration.class,
                        ShardQAutoConfiguration.class,
                        JmsAutoConfiguration.class))
                .withPropertyValues("shardq.embedded.data-dir=" + dataDir, "shardq.pool.size=4")
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    assertThat(dataDir.resolve("PG_VERSION")).exists(); // the embedded server's data directory
                    DataSource ds = ctx.getBean(DataSource.class);
                    TransactionAwareShardQConnectionFactory factory =
                            ctx.getBean(TransactionAwareShardQConnectionFactory.class);
                    assertThat(factory.joinedDataSource()).isSameAs(ds);
                    JmsTemplate jms = ctx.getBean(JmsTemplate.class);
                    jms.convertAndSend("auto.embedded", "hello");
                    jms.setReceiveTimeout(10_000);
                    assertThat(jms.receiveAndConvert("auto.embedded")).isEqualTo("hello");

                    // the application's SQL and a send in one transaction on that server: all or nothing
                    JdbcTemplate sql = new JdbcTemplate(ds);
                    sql.execute("create table if not exists greetings (text text)");
                    TransactionTemplate tx = new TransactionTemplate(ctx.getBean(PlatformTransactionManager.class));
                    tx.executeWithoutResult(status -> {
                        sql.update("insert into greetings values ('rolled back')");
                        jms.convertAndSend("auto.embedded", "rolled back");
                        status.setRollbackOnly();
                    });
                    tx.executeWithoutResult(status -> {
                        sql.update("insert into greetings values ('committed')");
                        jms.convertAndSend("auto.embedded", "committed");
                    });
                    assertThat(sql.queryForList("select text from greetings", String.class))
                            .containsExactly("committed");
                    assertThat(jms.receiveAndConvert("auto.embedded")).isEqualTo("committed");
                    jms.setReceiveTimeout(500);
                    assertThat(jms.receiveAndConvert("auto.embedded")).isNull();
                });
    }

    @Test
    void withADataSourceUrl_theStarterLeavesTheDataSourceToSpringBoot(TestDatabase db) {
        withDataSource(db, db.jdbcUrl())
                .withConfiguration(AutoConfigurations.of(ShardQDataSourceAutoConfiguration.class))
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    assertThat(ctx).doesNotHaveBean(io.shardq.broker.store.Database.class);
                    assertThat(ctx.getBean(DataSource.class)).isInstanceOf(com.zaxxer.hikari.HikariDataSource.class);
                    assertThat(((com.zaxxer.hikari.HikariDataSource) ctx.getBean(DataSource.class)).getJdbcUrl())
                            .isEqualTo(db.jdbcUrl());
                });
    }

    @Test
    void withDataSource_shardqUsesItsDatabase_andTheListenerFactoryItsTransactionManager(TestDatabase db) {
        withDataSource(db, db.jdbcUrl())
                .withPropertyValues("shardq.default.shards=2")
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    BrokerConfig config = ctx.getBean(BrokerConfig.class);
                    assertThat(config.get(BrokerProperty.JDBC_URL)).isEqualTo(db.jdbcUrl());
                    assertThat(config.get(BrokerProperty.JDBC_USER)).isEqualTo(db.user());
                    assertThat(config.getInt(BrokerProperty.DEFAULT_SHARDS))
                            .isEqualTo(2); // from the Spring environment
                    TransactionAwareShardQConnectionFactory factory =
                            ctx.getBean(TransactionAwareShardQConnectionFactory.class);
                    assertThat(factory.joinedDataSource()).isSameAs(ctx.getBean(DataSource.class));
                    assertThat(ctx.getBean(ConnectionFactory.class)).isSameAs(factory);

                    var container = ctx.getBean("jmsListenerContainerFactory", DefaultJmsListenerContainerFactory.class)
                            .createListenerContainer(endpoint());
                    assertThat(ReflectionTestUtils.getField(container, "transactionManager"))
                            .isSameAs(ctx.getBean(PlatformTransactionManager.class));
                });
    }

    private static SimpleJmsListenerEndpoint endpoint() {
        SimpleJmsListenerEndpoint e = new SimpleJmsListenerEndpoint();
        e.setId("probe");
        e.setDestination("auto.probe");
        e.setMessageListener(m -> {});
        return e;
    }

    @Test
    void listenerTransactionsOff_leavesSpringBootsListenerFactory(TestDatabase db) {
        withDataSource(db, db.jdbcUrl())
                .withPropertyValues("shardq.spring.listener-transactions=false")
                .run(ctx -> {
                    var container = ctx.getBean("jmsListenerContainerFactory", DefaultJmsListenerContainerFactory.class)
                            .createListenerContainer(endpoint());
                    assertThat(ReflectionTestUtils.getField(container, "transactionManager"))
                            .isNull();
                });
    }

    @Test
    void aJoinedSession_endsWithItsTransaction(TestDatabase db) {
        withDataSource(db, db.jdbcUrl()).run(ctx -> {
            ConnectionFactory cf = ctx.getBean(ConnectionFactory.class);
            JdbcTemplate jdbc = new JdbcTemplate(ctx.getBean(DataSource.class));
            jdbc.execute("create table if not exists notes (n text)");
            var tx = new TransactionTemplate(ctx.getBean(PlatformTransactionManager.class));
            try (Connection c = cf.createConnection()) {
                Session[] kept = new Session[1];
                tx.executeWithoutResult(status -> {
                    try {
                        kept[0] = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                        assertThat(kept[0].getTransacted()).isTrue(); // it is the transaction's
                        kept[0].createProducer(kept[0].createQueue("auto.joined"))
                                .send(kept[0].createTextMessage("with the note"));
                        kept[0].commit(); // does nothing: the Spring transaction commits
                        jdbc.update("insert into notes values ('sent')");
                        status.setRollbackOnly();
                    } catch (jakarta.jms.JMSException e) {
                        throw new IllegalStateException(e);
                    }
                });
                assertThatThrownBy(() -> kept[0].createTextMessage("late"))
                        .isInstanceOf(jakarta.jms.IllegalStateException.class)
                        .hasMessageContaining("joined a Spring transaction that has ended");
                assertThat(jdbc.queryForObject("select count(*) from notes", Integer.class))
                        .isZero();
                Session plain = c.createSession(false, Session.AUTO_ACKNOWLEDGE); // no transaction: a plain session
                c.start();
                assertThat(plain.createConsumer(plain.createQueue("auto.joined"))
                                .receive(1_000))
                        .isNull();
                plain.close();
            }
        });
    }

    @Test
    void jmsTransactionManager_withoutADataSourceTransaction_keepsLocalJmsTransactions(TestDatabase db) {
        withDataSource(db, db.jdbcUrl()).run(ctx -> {
            ConnectionFactory cf = ctx.getBean(ConnectionFactory.class);
            var jmsTx = new TransactionTemplate(new org.springframework.jms.connection.JmsTransactionManager(cf));
            JmsTemplate jms = new JmsTemplate(cf);
            jms.setReceiveTimeout(1_000);
            jmsTx.executeWithoutResult(status -> {
                jms.convertAndSend("auto.jmstx", "rolled back");
                status.setRollbackOnly();
            });
            assertThat(jms.receiveAndConvert("auto.jmstx")).isNull();
            jmsTx.executeWithoutResult(status -> jms.convertAndSend("auto.jmstx", "committed"));
            jms.setReceiveTimeout(10_000);
            assertThat(jms.receiveAndConvert("auto.jmstx")).isEqualTo("committed");
        });
    }

    @Test
    void aDataSourceOnAnotherDatabase_failsTheStart_namingTheProblem(TestDatabase db) throws Exception {
        String other = db.name() + "_other";
        try (var c = db.connect();
                Statement st = c.createStatement()) {
            st.execute("create database " + other);
        }
        try {
            withDataSource(db, db.jdbcUrl().replace("/" + db.name(), "/" + other))
                    .withPropertyValues(
                            "shardq.jdbc.url=" + db.jdbcUrl(),
                            "shardq.jdbc.user=" + db.user(),
                            "shardq.jdbc.password=" + db.password())
                    .run(ctx -> {
                        assertThat(ctx).hasFailed();
                        assertThat(ctx.getStartupFailure())
                                .rootCause()
                                .hasMessageContaining("is not the database ShardQ's own pool uses")
                                .hasMessageContaining("shardq.spring.join-transactions=false");
                    });
        } finally {
            try (var c = db.connect();
                    Statement st = c.createStatement()) {
                st.execute("drop database if exists " + other + " with (force)");
            }
        }
    }
}

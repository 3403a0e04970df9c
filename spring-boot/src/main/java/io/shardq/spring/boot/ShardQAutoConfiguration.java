package io.shardq.spring.boot;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.jms.ShardQConnectionFactory;
import jakarta.jms.ConnectionFactory;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.jms.DefaultJmsListenerContainerFactoryConfigurer;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.jms.config.DefaultJmsListenerContainerFactory;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.ResourceTransactionManager;

/**
 * Auto-configuration of ShardQ for Spring Boot: a {@link ConnectionFactory} from the {@code
 * shardq.*} settings, on the application's own {@link DataSource} when it has one, so that JMS
 * work commits with the application's JDBC/JPA work; Spring Boot's {@code JmsAutoConfiguration}
 * then builds {@code JmsTemplate} and the {@code @JmsListener} infrastructure on it as for any
 * broker.
 *
 * <p>Beans, each replaceable by one of the application's own:
 *
 * <ul>
 *   <li>{@link BrokerConfig} {@code shardQBrokerConfig}: the settings; {@code shardq.jdbc.*} taken
 *       from the DataSource when unset (an application that names no database gets one from {@link
 *       ShardQDataSourceAutoConfiguration}, on the embedded PostgreSQL), ShardQ's own settings when
 *       sessions do not join a DataSource.
 *   <li>{@link TransactionAwareShardQConnectionFactory} {@code shardQConnectionFactory}: started
 *       with the context (so a wrong setting fails the start), stopped with it; {@link
 *       ShardQConnectionFactoryCustomizer} beans adjust it first (e.g. the ObjectMessage allow
 *       list). Its {@code target().broker()} is the engine, for metrics and administration.
 *   <li>{@code jmsListenerContainerFactory}: Spring Boot's, configured by {@code spring.jms.listener.*},
 *       plus the application's transaction manager when it works on the joined DataSource.
 * </ul>
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
            "org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration",
            "org.springframework.boot.autoconfigure.orm.jpa.HibernateJpaAutoConfiguration"
        },
        beforeName = "org.springframework.boot.autoconfigure.jms.JmsAutoConfiguration")
@ConditionalOnClass({ShardQConnectionFactory.class, ConnectionFactory.class})
@ConditionalOnMissingBean(ConnectionFactory.class)
@EnableConfigurationProperties(ShardQSpringProperties.class)
public class ShardQAutoConfiguration {
    private static final Logger LOG = LoggerFactory.getLogger(ShardQAutoConfiguration.class);

    @Bean
    @ConditionalOnMissingBean
    BrokerConfig shardQBrokerConfig(
            Environment environment, ShardQSpringProperties properties, ObjectProvider<DataSource> dataSource) {
        return EnvironmentSettings.brokerConfig(environment, joined(properties, dataSource));
    }

    @Bean(destroyMethod = "close")
    TransactionAwareShardQConnectionFactory shardQConnectionFactory(
            BrokerConfig config,
            ShardQSpringProperties properties,
            ObjectProvider<DataSource> dataSource,
            ObjectProvider<ShardQConnectionFactoryCustomizer> customizers)
            throws Exception {
        ShardQConnectionFactory target = new ShardQConnectionFactory(config);
        customizers.orderedStream().forEach(c -> c.customize(target));
        DataSource joined = joined(properties, dataSource);
        try {
            Broker broker = target.broker(); // starts the instance now: a wrong setting fails the context
            if (joined != null) {
                requireSameDatabase(joined, broker);
            }
        } catch (Exception e) {
            target.close();
            throw e;
        }
        LOG.info(
                "ShardQ connection factory started ({})",
                joined == null
                        ? "no DataSource: sessions use ShardQ's own pool"
                        : "sessions join the transactions of " + joined);
        return new TransactionAwareShardQConnectionFactory(target, joined);
    }

    private static DataSource joined(ShardQSpringProperties properties, ObjectProvider<DataSource> dataSource) {
        return properties.isJoinTransactions() ? dataSource.getIfUnique() : null;
    }

    /**
     * Sessions write into the DataSource's connections what ShardQ's own pool reads: both must be
     * the same database. The instance row the engine just registered must be visible there.
     */
    static void requireSameDatabase(DataSource ds, Broker broker) {
        String problem;
        try (Connection c = ds.getConnection()) {
            if (broker.admin().cluster().instanceVisibleOn(c, broker.instanceId())) {
                return;
            }
            problem = "ShardQ's instance row " + broker.instanceId() + " is not there";
        } catch (SQLException e) {
            problem = e.getMessage();
        }
        throw new IllegalStateException("the application's DataSource is not the database ShardQ's own pool uses ("
                + problem + "). Sessions join the application's transactions only when both are the same PostgreSQL"
                + " database: leave shardq.jdbc.url unset (it is then the DataSource's), point it at the DataSource's"
                + " database, or set shardq.spring.join-transactions=false");
    }

    /**
     * The {@code @JmsListener} container factory: Spring Boot's, plus the application's transaction
     * manager when it works on the joined DataSource, so that each receive runs in a transaction of
     * that manager (the container then creates its session inside the transaction, and the session
     * joins it). Without such a manager it is Spring Boot's as is (locally transacted sessions).
     */
    @Bean
    @ConditionalOnMissingBean(name = "jmsListenerContainerFactory")
    @ConditionalOnClass(DefaultJmsListenerContainerFactoryConfigurer.class)
    DefaultJmsListenerContainerFactory jmsListenerContainerFactory(
            ObjectProvider<DefaultJmsListenerContainerFactoryConfigurer> configurer,
            ConnectionFactory connectionFactory,
            ShardQSpringProperties properties,
            ObjectProvider<PlatformTransactionManager> transactionManager) {
        DefaultJmsListenerContainerFactory factory = new DefaultJmsListenerContainerFactory();
        DefaultJmsListenerContainerFactoryConfigurer boot = configurer.getIfAvailable();
        if (boot != null) {
            boot.configure(factory, connectionFactory); // spring.jms.listener.*, converter, destination resolver
        } else {
            factory.setConnectionFactory(connectionFactory); // JmsAutoConfiguration excluded
        }
        if (properties.isListenerTransactions()
                && connectionFactory instanceof TransactionAwareShardQConnectionFactory shardq
                && shardq.joinedDataSource() != null) {
            PlatformTransactionManager tm = transactionManager.getIfUnique();
            if (tm != null && worksOn(tm, shardq.joinedDataSource())) {
                factory.setTransactionManager(tm);
            }
        }
        return factory;
    }

    /** DataSourceTransactionManager (its resource), or JpaTransactionManager (its getDataSource()). */
    static boolean worksOn(PlatformTransactionManager tm, DataSource ds) {
        if (tm instanceof ResourceTransactionManager r && r.getResourceFactory() == ds) {
            return true;
        }
        try {
            Method m = tm.getClass().getMethod("getDataSource");
            return m.invoke(tm) == ds;
        } catch (ReflectiveOperationException e) {
            return false;
        }
    }

    /**
     * Micrometer: when {@code shardq-metrics} and Micrometer are on the class path, a {@link
     * io.shardq.metrics.ShardQMetrics} bean over the factory's engine. Spring Boot's actuator binds
     * every {@code MeterBinder} bean to its registries, so {@code /actuator/prometheus} shows the
     * {@code shardq_*} meters with no further setting; closing the context removes them.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"io.shardq.metrics.ShardQMetrics", "io.micrometer.core.instrument.binder.MeterBinder"})
    static class MetricsConfiguration {
        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        io.shardq.metrics.ShardQMetrics shardQMetrics(TransactionAwareShardQConnectionFactory factory)
                throws jakarta.jms.JMSException {
            return new io.shardq.metrics.ShardQMetrics(factory.target().broker());
        }
    }

    /**
     * JMX: with {@code spring.jmx.enabled=true} (Spring Boot's own switch for its MBeans), the same
     * figures as MXBeans under {@code io.shardq:type=...} in Spring's MBean server, unregistered when
     * the context closes.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.shardq.metrics.ShardQMBeans")
    @ConditionalOnProperty(prefix = "spring.jmx", name = "enabled", havingValue = "true")
    static class JmxConfiguration {
        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        io.shardq.metrics.ShardQMBeans.Registration shardQMBeans(
                TransactionAwareShardQConnectionFactory factory, ObjectProvider<javax.management.MBeanServer> server)
                throws jakarta.jms.JMSException {
            return io.shardq.metrics.ShardQMBeans.register(
                    factory.target().broker(),
                    server.getIfAvailable(java.lang.management.ManagementFactory::getPlatformMBeanServer));
        }
    }
}

package io.shardq.spring.boot;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The starter's own settings, beside the {@code shardq.*} settings of the engine ({@code
 * BrokerProperty}, read from the Spring environment by {@link ShardQAutoConfiguration}).
 */
@ConfigurationProperties("shardq.spring")
public class ShardQSpringProperties {
    /**
     * Whether a JMS session created while a Spring transaction holds a connection of the
     * application's DataSource joins that transaction (works on its JDBC connection, commits and
     * rolls back with it). False makes every session a plain ShardQ session with its own
     * transactions, and the ShardQ connection factory no longer needs the application's DataSource.
     */
    private boolean joinTransactions = true;

    /**
     * Whether the default @JmsListener container factory (jmsListenerContainerFactory) runs each
     * receive in a transaction of the application's transaction manager when that manager works
     * on the joined DataSource (DataSourceTransactionManager, JpaTransactionManager): the receive,
     * the listener's SQL and its sends then commit or roll back together.
     */
    private boolean listenerTransactions = true;

    public boolean isJoinTransactions() {
        return joinTransactions;
    }

    public void setJoinTransactions(boolean joinTransactions) {
        this.joinTransactions = joinTransactions;
    }

    public boolean isListenerTransactions() {
        return listenerTransactions;
    }

    public void setListenerTransactions(boolean listenerTransactions) {
        this.listenerTransactions = listenerTransactions;
    }
}

package io.shardq.examples.orders;

import jakarta.jms.JMSException;
import jakarta.jms.TextMessage;
import org.springframework.jms.annotation.JmsListener;
import org.springframework.stereotype.Component;

/**
 * Takes orders ({@code "id,item,quantity"}) from the {@code orders} queue. The starter's
 * {@code jmsListenerContainerFactory} runs each receive in a transaction of the application's
 * {@code DataSourceTransactionManager}: an exception here rolls back the receive, the service's
 * SQL and its event together, and the order comes again ({@code JMSRedelivered}).
 */
@Component
public class OrderListener {
    private final OrderService orders;
    private final Failures failures;

    public OrderListener(OrderService orders, Failures failures) {
        this.orders = orders;
        this.failures = failures;
    }

    @JmsListener(destination = OrderService.ORDERS)
    public void onOrder(TextMessage message) throws JMSException {
        String[] f = message.getText().split(",");
        failures.delivered(f[0], message.getJMSRedelivered(), message.getIntProperty("JMSXDeliveryCount"));
        orders.accept(f[0], f[1], Integer.parseInt(f[2]));
        failures.afterListener(f[0]);
    }
}

package io.shardq.examples.orders;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.stereotype.Component;

/**
 * Where the example's tests inject faults, and what they watch: the deliveries the listener saw.
 * A real service has no such bean; it stands for whatever can fail after the work is done (a
 * validation, a remote call, a constraint at commit).
 */
@Component
public class Failures {
    /** One delivery of an order to the listener. */
    public record Delivery(String orderId, boolean redelivered, int deliveryCount) {}

    private final Map<String, AtomicInteger> afterSend = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> afterListener = new ConcurrentHashMap<>();
    private final List<Delivery> deliveries = new CopyOnWriteArrayList<>();

    /** The next {@code times} calls for {@code orderId} fail after the event was sent. */
    public void failAfterSend(String orderId, int times) {
        afterSend.put(orderId, new AtomicInteger(times));
    }

    /** The next {@code times} deliveries of {@code orderId} fail in the listener, after the service returned. */
    public void failAfterListener(String orderId, int times) {
        afterListener.put(orderId, new AtomicInteger(times));
    }

    public List<Delivery> deliveries(String orderId) {
        return deliveries.stream().filter(d -> d.orderId().equals(orderId)).toList();
    }

    void delivered(String orderId, boolean redelivered, int deliveryCount) {
        deliveries.add(new Delivery(orderId, redelivered, deliveryCount));
    }

    void afterSend(String orderId) {
        fail(afterSend, orderId, "after the send");
    }

    void afterListener(String orderId) {
        fail(afterListener, orderId, "in the listener");
    }

    private static void fail(Map<String, AtomicInteger> plan, String orderId, String where) {
        AtomicInteger left = plan.get(orderId);
        if (left != null && left.getAndDecrement() > 0) {
            throw new IllegalStateException("injected failure " + where + " of order " + orderId);
        }
    }
}

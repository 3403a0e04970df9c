package io.shardq.metrics;

import io.shardq.broker.Broker;
import io.shardq.broker.CacheInfo;
import io.shardq.broker.SubscriptionStats;
import io.shardq.broker.TopicStats;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The figures of {@link ShardQMetrics} as JMX MXBeans, registered and unregistered explicitly:
 *
 * <pre>{@code
 * try (ShardQMBeans.Registration jmx = ShardQMBeans.register(broker, ManagementFactory.getPlatformMBeanServer())) {
 *     ...
 * }   // unregisters them all
 * }</pre>
 *
 * <p>Names: {@code io.shardq:type=Instance,instance=ID} ({@link InstanceMXBean}), {@code
 * io.shardq:type=Destination,instance=ID,name=NAME} ({@link DestinationMXBean}), {@code
 * io.shardq:type=Subscription,instance=ID,destination=TOPIC,name=NAME} ({@link SubscriptionMXBean})
 * and {@code io.shardq:type=KvCache,instance=ID,name=NAME} ({@link KvCacheMXBean}); the instance
 * key keeps two brokers of one JVM apart. Figures that need SQL come from one snapshot per interval,
 * as for the meters; the set of MBeans follows the destinations, subscriptions and caches as the
 * meters do (a refresh every interval, at least once a second, or {@link Registration#refresh()}).
 */
public final class ShardQMBeans {
    private static final Logger LOG = LoggerFactory.getLogger(ShardQMBeans.class);

    /** The JMX domain of every ShardQ MBean. */
    public static final String DOMAIN = "io.shardq";

    private ShardQMBeans() {}

    /** Registers the MBeans of {@code broker} in {@code server} with a 5 s snapshot. */
    public static Registration register(Broker broker, MBeanServer server) {
        return register(broker, server, ShardQMetrics.DEFAULT_SNAPSHOT_INTERVAL);
    }

    /** Registers the MBeans of {@code broker} in the platform MBean server. */
    public static Registration register(Broker broker) {
        return register(broker, ManagementFactory.getPlatformMBeanServer());
    }

    /** Registers the MBeans of {@code broker} in {@code server}; SQL-read figures served for {@code snapshotInterval}. */
    public static Registration register(Broker broker, MBeanServer server, Duration snapshotInterval) {
        return register(broker, server, snapshotInterval, Clock.systemUTC(), true);
    }

    static Registration register(
            Broker broker, MBeanServer server, Duration snapshotInterval, Clock clock, boolean scheduled) {
        if (broker == null || server == null) {
            throw new IllegalArgumentException("broker and server must not be null");
        }
        Registration r =
                new Registration(new Figures(broker, new Snapshots(broker, snapshotInterval, clock), clock), server);
        try {
            r.add(
                    "instance",
                    name("Instance", broker, null, null),
                    () -> new MBeanViews.Instance(r.figures),
                    InstanceMXBean.class);
            r.refresh();
        } catch (RuntimeException e) {
            r.close();
            throw e;
        }
        if (scheduled) {
            r.schedule(Math.max(1000, snapshotInterval.toMillis()));
        }
        return r;
    }

    static ObjectName name(String type, Broker broker, String destination, String name) {
        StringBuilder sb = new StringBuilder(DOMAIN)
                .append(":type=")
                .append(type)
                .append(",instance=")
                .append(broker.instanceId());
        if (destination != null) {
            sb.append(",destination=").append(value(destination));
        }
        if (name != null) {
            sb.append(",name=").append(value(name));
        }
        try {
            return new ObjectName(sb.toString());
        } catch (JMException e) {
            throw new IllegalArgumentException("no JMX name for " + sb + ": " + e.getMessage(), e);
        }
    }

    /** Destination and cache names are plain ([A-Za-z0-9_.-]); a subscription name may need quoting. */
    private static String value(String s) {
        return s.matches("[A-Za-z0-9_.\\-]+") ? s : ObjectName.quote(s);
    }

    /** The MBeans of one broker in one server; {@link #close()} unregisters them. Thread-safe. */
    public static final class Registration implements AutoCloseable {
        private final Figures figures;
        private final MBeanServer server;
        /** Registered names by key (kind and name of what they show). */
        private final Map<String, ObjectName> registered = new LinkedHashMap<>();

        private ScheduledExecutorService refresher;
        private boolean closed;

        private Registration(Figures figures, MBeanServer server) {
            this.figures = figures;
            this.server = server;
        }

        /** Registers the MBeans of new destinations, subscriptions and caches; unregisters those of dropped ones. */
        public synchronized void refresh() {
            if (closed || figures.broker.isClosed()) {
                return;
            }
            Snapshot s = figures.snapshots.current();
            Broker b = figures.broker;
            Map<String, Supplier<Object>> wanted = new HashMap<>();
            Map<String, ObjectName> names = new HashMap<>();
            Map<String, Class<?>> types = new HashMap<>();
            for (String q : s.queues().keySet()) {
                String key = "queue\0" + q;
                wanted.put(key, () -> new MBeanViews.Destination(figures, q, "queue"));
                names.put(key, name("Destination", b, null, q));
                types.put(key, DestinationMXBean.class);
            }
            for (TopicStats t : s.topics().values()) {
                String topic = t.topic().name();
                String key = "topic\0" + topic;
                wanted.put(key, () -> new MBeanViews.Destination(figures, topic, "topic"));
                names.put(key, name("Destination", b, null, topic));
                types.put(key, DestinationMXBean.class);
                for (SubscriptionStats sub : t.subscriptions()) {
                    String n = sub.name();
                    String sk = "subscription\0" + topic + "\0" + n;
                    wanted.put(sk, () -> new MBeanViews.Subscription(figures, topic, n));
                    names.put(sk, name("Subscription", b, topic, n));
                    types.put(sk, SubscriptionMXBean.class);
                }
            }
            for (CacheInfo c : s.caches().values()) {
                String key = "cache\0" + c.name();
                wanted.put(key, () -> new MBeanViews.KvCache(figures, c.name()));
                names.put(key, name("KvCache", b, null, c.name()));
                types.put(key, KvCacheMXBean.class);
            }
            figures.retainCaches(s.caches().keySet());
            registered.entrySet().removeIf(e -> {
                if (e.getKey().equals("instance") || wanted.containsKey(e.getKey())) {
                    return false;
                }
                unregister(e.getValue());
                return true;
            });
            for (String key : new TreeSet<>(wanted.keySet())) {
                if (!registered.containsKey(key)) {
                    add(key, names.get(key), wanted.get(key), types.get(key));
                }
            }
        }

        /** The names registered now. */
        public synchronized Set<ObjectName> names() {
            return Set.copyOf(registered.values());
        }

        /** Stops the refresh and unregisters every MBean of this registration. Safe twice. */
        @Override
        public synchronized void close() {
            if (closed) {
                return;
            }
            closed = true;
            if (refresher != null) {
                refresher.shutdownNow();
            }
            registered.values().forEach(this::unregister);
            registered.clear();
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        private void add(String key, ObjectName name, Supplier<Object> make, Class<?> type) {
            try {
                server.registerMBean(new StandardMBean(make.get(), (Class) type, true), name);
                registered.put(key, name);
            } catch (JMException e) {
                throw new IllegalStateException(
                        "cannot register the MBean " + name + ": " + e.getMessage()
                                + " (is another registration of this broker open in this MBean server?)",
                        e);
            }
        }

        private void unregister(ObjectName name) {
            try {
                server.unregisterMBean(name);
            } catch (InstanceNotFoundException e) {
                // unregistered by someone else: nothing to do
            } catch (JMException e) {
                LOG.warn("{} - cannot unregister the MBean {}", figures.broker.instanceId(), name, e);
            }
        }

        private void schedule(long everyMillis) {
            refresher = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "shardq-" + figures.broker.instanceId() + "-jmx-1");
                t.setDaemon(true);
                return t;
            });
            refresher.scheduleWithFixedDelay(
                    () -> {
                        try {
                            refresh();
                        } catch (RuntimeException e) {
                            LOG.warn(
                                    "{} - refreshing the ShardQ MBeans failed; retrying",
                                    figures.broker.instanceId(),
                                    e);
                        }
                    },
                    everyMillis,
                    everyMillis,
                    TimeUnit.MILLISECONDS);
        }
    }
}

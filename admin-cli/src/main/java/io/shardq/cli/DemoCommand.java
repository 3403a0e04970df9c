package io.shardq.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardq.broker.Admin;
import io.shardq.broker.Broker;
import io.shardq.broker.CacheOptions;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.SubscriptionStats;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.jms.ShardQConnectionFactory;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;
import java.io.PrintWriter;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code shardq demo}: an order-processing scene that shows what ShardQ is for. Producers send
 * orders to a queue; consumer processes take each order and, in one transaction, update an
 * inventory table, read or fill a price in the key/value cache and publish an event on a topic
 * with three durable subscriptions; halfway one consumer process is killed with {@code kill -9}
 * and replaced. At the end the exactly-once check: every order processed once, the stock down by
 * exactly what was ordered, every subscription holding every event once.
 */
@Command(
        name = "demo",
        description = {
            "Run an order-processing scene for a while and check that nothing was lost or duplicated.",
            "Orders go to queue " + DemoCommand.ORDERS + "; consumer processes take each one and, in one transaction,"
                    + " update shardq_demo.inventory, read or fill a price in cache " + DemoCommand.PRICES
                    + " and publish an event on topic " + DemoCommand.EVENTS
                    + " (durable subscriptions billing, shipping, analytics). Halfway one consumer is killed with"
                    + " kill -9 and replaced. A live view shows rates, backlog, subscription lag and the cache hit"
                    + " ratio; the summary checks exactly-once. The demo's queue, topic, cache and tables are"
                    + " created afresh on each run and left in place afterwards to look at. Ctrl-C stops it"
                    + " cleanly."
        })
final class DemoCommand implements Callable<Integer> {
    static final String ORDERS = "demo.orders";
    static final String EVENTS = "demo.events";
    static final String PRICES = "demo.prices";
    static final List<String> SUBSCRIPTIONS = List.of("billing", "shipping", "analytics");
    static final int ITEMS = 20;
    static final int PRODUCERS = 4;
    static final long INITIAL_STOCK = 1_000_000_000L;

    @Mixin
    CommandContext cli;

    @Option(
            names = "--duration",
            paramLabel = "TIME",
            description = "how long orders are sent (default: ${DEFAULT-VALUE}); then the consumers finish")
    String duration = "30s";

    @Option(names = "--rate", paramLabel = "N", description = "orders per second (default: ${DEFAULT-VALUE})")
    int rate = 200;

    @Option(
            names = "--consumers",
            paramLabel = "N",
            description = "consumer processes, 1 to 8 (default: ${DEFAULT-VALUE})")
    int consumers = 2;

    @Option(names = "--no-kill", description = "do not kill a consumer process halfway (kill -9) and replace it")
    boolean noKill;

    @Option(names = "--json", description = "print the summary as JSON (the live view goes to stderr)")
    boolean json;

    @Override
    public Integer call() throws Exception {
        Duration sending = Durations.parse(duration);
        if (sending.isZero() || rate < 1 || rate > 100_000 || consumers < 1 || consumers > 8) {
            throw new CommandLine.ParameterException(
                    cli.spec.commandLine(), "--duration must be more than 0, --rate 1 to 100000, --consumers 1 to 8");
        }
        PrintWriter out = cli.spec.commandLine().getOut();
        PrintWriter view = json ? cli.spec.commandLine().getErr() : out;
        try (GracefulStop stop = GracefulStop.installSignals();
                ShardQConnectionFactory factory = new ShardQConnectionFactory(cli.connection.config(
                        "shardq demo (" + ProcessHandle.current().pid() + ")"));
                DemoConsumers processes = new DemoConsumers(cli.connection)) {
            Broker broker = factory.broker();
            view.println("shardq demo: setting up " + ORDERS + ", " + EVENTS + " (" + String.join(", ", SUBSCRIPTIONS)
                    + "), " + PRICES + " and shardq_demo.inventory"
                    + (broker.config().embedded() ? " on the embedded PostgreSQL" : ""));
            view.flush();
            setUp(broker.admin(), broker.dataSource());
            Scene scene = new Scene(broker, factory, processes, stop, view, System.console() != null && !json);
            Summary summary = scene.run(sending);
            if (json) {
                Json.print(out, summary.json());
            } else {
                summary.print(out);
            }
            out.flush();
            return summary.stoppedEarly ? 130 : summary.exactlyOnce() && summary.complete() ? 0 : 1;
        }
    }

    /** The price the demo's "pricing service" gives an item: fixed, so a cached one can be checked. */
    static String priceOf(String item) {
        int n = Integer.parseInt(item.substring(item.indexOf('-') + 1));
        return String.format(Locale.ROOT, "%d.%02d", 3 + n, (n * 37) % 100);
    }

    static String item(long order) {
        return String.format(Locale.ROOT, "item-%02d", (order * 7) % ITEMS);
    }

    static int quantity(long order) {
        return 1 + (int) (order % 5);
    }

    /** The demo's destinations, cache and tables, created afresh. */
    private static void setUp(Admin admin, DataSource ds) throws SQLException {
        for (DestinationInfo d : admin.list()) {
            if (d.name().equals(ORDERS)) {
                admin.queues().drop(ORDERS, true);
            } else if (d.name().equals(EVENTS)) {
                admin.topics().drop(EVENTS, true);
            }
        }
        if (admin.caches().list().stream().anyMatch(c -> c.name().equals(PRICES))) {
            admin.caches().drop(PRICES);
        }
        admin.queues().create(ORDERS, QueueOptions.DEFAULTS.withShards(4));
        admin.topics().create(EVENTS, QueueOptions.DEFAULTS.withShards(2));
        for (String s : SUBSCRIPTIONS) {
            admin.topics().addSubscriber(EVENTS, s, null);
        }
        admin.caches().create(PRICES, CacheOptions.DEFAULTS);
        try (java.sql.Connection c = ds.getConnection();
                Statement st = c.createStatement()) {
            st.execute("create schema if not exists shardq_demo");
            st.execute("drop table if exists shardq_demo.inventory, shardq_demo.processed");
            st.execute("create table shardq_demo.inventory (item text primary key, stock bigint not null)");
            st.execute("create table shardq_demo.processed (order_id bigint primary key, consumer int not null,"
                    + " deliveries int not null default 1, at timestamptz not null default clock_timestamp())");
            st.execute("insert into shardq_demo.inventory select format('item-%s', lpad(n::text, 2, '0')), "
                    + INITIAL_STOCK + " from generate_series(0, " + (ITEMS - 1) + ") n");
        }
    }

    /** The scene: producers, consumer processes, subscribers, the kill, the live view. */
    private final class Scene {
        private final Broker broker;
        private final ShardQConnectionFactory factory;
        private final DemoConsumers processes;
        private final GracefulStop stop;
        private final DemoView view;
        private final Map<String, Map<Long, Integer>> received = new LinkedHashMap<>();
        /** Orders each producer thread has committed: thread k sends k, k + 4, k + 8, ... */
        private final java.util.concurrent.atomic.AtomicLongArray committed =
                new java.util.concurrent.atomic.AtomicLongArray(PRODUCERS);

        private final java.util.concurrent.CountDownLatch firstCommits =
                new java.util.concurrent.CountDownLatch(PRODUCERS);
        private volatile boolean throttleAnalytics = true;
        private volatile String killed;
        /**
         * Set once the consumer is killed: each producer goes on past --duration until it has
         * committed a batch after seeing it, so that orders flow across the kill whatever the
         * scheduling (a main thread held up past the sending time used to kill after it).
         */
        private volatile boolean killIssued;
        /** Orders committed when the kill came (-1: no kill). */
        private volatile long sentAtKill = -1;

        private volatile Throwable producerFailure;

        Scene(
                Broker broker,
                ShardQConnectionFactory factory,
                DemoConsumers processes,
                GracefulStop stop,
                PrintWriter out,
                boolean terminal) {
            this.broker = broker;
            this.factory = factory;
            this.processes = processes;
            this.stop = stop;
            this.view = new DemoView(out, terminal);
            for (String s : SUBSCRIPTIONS) {
                received.put(s, new ConcurrentHashMap<>());
            }
        }

        Summary run(Duration sending) throws Exception {
            try (Connection subscribers = factory.createConnection();
                    Connection producers = factory.createConnection()) {
                subscribe(subscribers);
                subscribers.start();
                long start = System.nanoTime();
                long sendNanos = sending.toNanos();
                // the consumers first, so that orders are taken while they are sent and the kill comes
                // while they flow (a consumer JVM takes seconds to start on a loaded machine: 37 s was
                // seen, after which every order had been sent)
                for (int i = 1; i <= consumers; i++) {
                    processes.start(i);
                }
                Duration readyLimit = Duration.ofSeconds(180);
                long lastView = 0;
                while (!processes.ready() && !stop.requested()) {
                    long now = System.nanoTime();
                    if (now - start > readyLimit.toNanos()) {
                        throw processes.notReady(readyLimit);
                    }
                    if (now - lastView >= view.interval()) {
                        view.show(snapshot(
                                now - start,
                                sendNanos,
                                "starting: waiting for " + consumers + " consumer processes to connect ("
                                        + processes.readyCount() + " ready), then orders are sent"));
                        lastView = now;
                    }
                    Thread.sleep(100);
                }
                long sendStart = System.nanoTime();
                List<Thread> threads = new ArrayList<>();
                for (int k = 0; k < PRODUCERS; k++) {
                    int thread = k;
                    Thread t = new Thread(
                            () -> produce(producers, thread, sendStart, sendNanos), "shardq-demo-producer-" + (k + 1));
                    t.start();
                    threads.add(t);
                }
                boolean killDone = noKill;
                while (threads.stream().anyMatch(Thread::isAlive)) {
                    long now = System.nanoTime();
                    if (!killDone && !stop.requested() && now - sendStart >= sendNanos / 2) {
                        killDone = true;
                        sentAtKill = sent();
                        killed = processes.killOne(now - start);
                        killIssued = true;
                        view.event(killed);
                    }
                    if (now - lastView >= view.interval()) {
                        view.show(snapshot(now - start, sendNanos, "sending orders"));
                        lastView = now;
                    }
                    threads.get(0).join(100);
                    if (!threads.get(0).isAlive()) {
                        for (Thread t : threads) {
                            t.join(100);
                        }
                    }
                }
                if (producerFailure != null) {
                    throw new IllegalStateException("the demo's producer failed: " + producerFailure, producerFailure);
                }
                throttleAnalytics = false;
                Snapshot last = finish(start, sendNanos, lastView);
                view.close();
                // then nothing moves: what the check reads is final
                processes.stopAll(Duration.ofSeconds(15));
                return new Summary(
                        (System.nanoTime() - start) / 1_000_000,
                        sent(),
                        perProducer(),
                        killed,
                        sentAtKill,
                        stop.requested(),
                        check(),
                        last);
            }
        }

        /**
         * The consumers finish the backlog and the slow subscription catches up. The demo waits as
         * long as they make progress (orders processed, events received); it gives up only after
         * {@code stall} with none (a killed consumer's shards come back when its leases expire,
         * shardq.lease.ttl-ms), and after Ctrl-C waits at most the lease TTL plus 10 s.
         */
        private Snapshot finish(long start, long sendNanos, long lastView) throws Exception {
            long ttl = Duration.ofMillis(broker.config().getInt(io.shardq.broker.BrokerProperty.LEASE_TTL_MS))
                    .toNanos();
            long stall = ttl + Duration.ofSeconds(30).toNanos();
            long afterStop = ttl + Duration.ofSeconds(10).toNanos();
            long lastProgress = System.nanoTime();
            long stopSeen = stop.requested() ? lastProgress : 0;
            Snapshot last = snapshot(System.nanoTime() - start, sendNanos, "finishing");
            long progress = last.progress();
            while (!last.done(sent())) {
                long now = System.nanoTime();
                if (stop.requested() && stopSeen == 0) {
                    stopSeen = now;
                }
                if (stopSeen != 0 && now - stopSeen > afterStop) {
                    break;
                }
                if (now - lastProgress > stall) {
                    break;
                }
                if (now - lastView >= view.interval()) {
                    view.show(last);
                    lastView = now;
                }
                Thread.sleep(250);
                long waiting = Math.max(0, sent() - last.processed());
                String phase = now - lastProgress < 2_000_000_000L
                        ? "finishing: " + Format.count(waiting) + " orders still to process, going down"
                        : String.format(
                                Locale.ROOT,
                                "finishing: %s orders still to process, no progress for %.0f s (waiting up to %.0f s:"
                                        + " a killed consumer's shards come back after the lease TTL)",
                                Format.count(waiting),
                                (now - lastProgress) / 1e9,
                                stall / 1e9);
                last = snapshot(
                        System.nanoTime() - start, sendNanos, stopSeen != 0 ? "stopping (Ctrl-C): " + phase : phase);
                if (last.progress() > progress) {
                    progress = last.progress();
                    lastProgress = System.nanoTime();
                }
            }
            view.show(last);
            return last;
        }

        private void subscribe(Connection c) throws JMSException {
            for (String name : SUBSCRIPTIONS) {
                Session s = c.createSession(Session.AUTO_ACKNOWLEDGE);
                Topic topic = s.createTopic(EVENTS);
                Map<Long, Integer> seen = received.get(name);
                boolean slow = name.equals("analytics");
                long[] next = {System.nanoTime()};
                s.createSharedDurableConsumer(topic, name).setMessageListener(m -> {
                    try {
                        seen.merge(m.getLongProperty("orderId"), 1, Integer::sum);
                    } catch (JMSException e) {
                        throw new IllegalStateException(e);
                    }
                    if (slow && throttleAnalytics) {
                        // a slow reporting job: half the order rate, so its lag grows while orders flow
                        next[0] = Math.max(next[0], System.nanoTime()) + 2_000_000_000L / rate;
                        LockSupport.parkNanos(next[0] - System.nanoTime());
                    }
                });
            }
        }

        long sent() {
            long n = 0;
            for (int k = 0; k < PRODUCERS; k++) {
                n += committed.get(k);
            }
            return n;
        }

        long[] perProducer() {
            long[] n = new long[PRODUCERS];
            for (int k = 0; k < PRODUCERS; k++) {
                n[k] = committed.get(k);
            }
            return n;
        }

        boolean wasSent(long order) {
            return order >= 0 && order / PRODUCERS < committed.get((int) (order % PRODUCERS));
        }

        /**
         * Producer thread {@code k} of four, as four order-taking front ends would be: its session's
         * sends go to one shard (a JMS session's sends stay in order, and ShardQ pins a thread's
         * sessions to one shard), so four threads spread the orders over the queue's four shards.
         * Together they send {@code --rate} orders a second, committing what is due every few ms.
         */
        private void produce(Connection c, int k, long start, long sendNanos) {
            boolean first = true;
            boolean committedAfterKill = false;
            try (Session s = c.createSession(Session.SESSION_TRANSACTED)) {
                MessageProducer p = s.createProducer(s.createQueue(ORDERS));
                long j = 0;
                while (!stop.requested()) {
                    long elapsed = System.nanoTime() - start;
                    if (elapsed >= sendNanos && (noKill || committedAfterKill)) {
                        break;
                    }
                    boolean afterKill = killIssued;
                    long due = (long) (rate * (elapsed / 1e9)) + 1; // orders 0 .. due-1 are due, all threads together
                    long n = k + j * PRODUCERS;
                    if (n >= due) {
                        LockSupport.parkNanos(5_000_000L);
                        continue;
                    }
                    for (; n < due; j++, n = k + j * PRODUCERS) {
                        TextMessage m = s.createTextMessage("order " + n);
                        m.setLongProperty("orderId", n);
                        m.setStringProperty("item", item(n));
                        m.setIntProperty("qty", quantity(n));
                        p.send(m);
                    }
                    s.commit();
                    committed.set(k, j);
                    committedAfterKill |= afterKill;
                    if (first) {
                        first = false;
                        firstCommits.countDown();
                    }
                }
            } catch (Throwable t) {
                producerFailure = t;
            } finally {
                if (first) {
                    firstCommits.countDown();
                }
            }
        }

        private Snapshot snapshot(long elapsedNanos, long sendNanos, String phase) throws SQLException {
            Admin admin = broker.admin();
            Map<String, Long> lag = new LinkedHashMap<>();
            for (SubscriptionStats s : admin.topics().subscriptions(EVENTS)) {
                lag.put(s.name(), s.lag());
            }
            Map<String, Long> got = new LinkedHashMap<>();
            received.forEach((name, seen) -> got.put(name, (long) seen.size()));
            long processed;
            long twice;
            try (java.sql.Connection c = broker.dataSource().getConnection();
                    Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery("select count(*), count(*) filter (where deliveries > 1)"
                            + " from shardq_demo.processed")) {
                rs.next();
                processed = rs.getLong(1);
                twice = rs.getLong(2);
            }
            return new Snapshot(
                    elapsedNanos / 1_000_000,
                    sendNanos / 1_000_000,
                    phase,
                    sent(),
                    processed,
                    twice,
                    admin.queues().backlog(ORDERS),
                    lag,
                    got,
                    processes.lines(),
                    processes.hits(),
                    processes.misses());
        }

        /**
         * The exactly-once check, once nothing moves any more: over the database, the queue and what
         * each subscription received. An order not processed is "still waiting" when it is in
         * demo.orders (or dead-lettered when in its dead-letter queue); only one that is nowhere is
         * missing. Likewise an event not received is still waiting while its subscription lags.
         */
        private Check check() throws SQLException {
            long processed = 0;
            long twice = 0;
            long unknown = 0;
            long processedQuantity = 0;
            java.util.BitSet seen = new java.util.BitSet();
            long stockDown;
            try (java.sql.Connection c = broker.dataSource().getConnection();
                    Statement st = c.createStatement()) {
                try (ResultSet rs = st.executeQuery("select order_id, deliveries from shardq_demo.processed")) {
                    while (rs.next()) {
                        long order = rs.getLong(1);
                        processed++;
                        twice += rs.getInt(2) > 1 ? 1 : 0;
                        if (wasSent(order)) {
                            seen.set((int) order);
                            processedQuantity += quantity(order);
                        } else {
                            unknown++; // processed but never committed by a producer: would be a phantom
                        }
                    }
                }
                try (ResultSet rs = st.executeQuery(
                        "select " + (INITIAL_STOCK * ITEMS) + " - sum(stock) from shardq_demo.inventory")) {
                    rs.next();
                    stockDown = rs.getLong(1);
                }
            }
            java.util.BitSet queued = ordersIn(ORDERS);
            String dlq = broker.admin().require(ORDERS).deadLetterQueue();
            java.util.BitSet deadLettered =
                    broker.admin().list().stream().anyMatch(d -> d.name().equals(dlq))
                            ? ordersIn(dlq)
                            : new java.util.BitSet();
            long waiting = 0;
            long dead = 0;
            long missing = 0;
            for (int k = 0; k < PRODUCERS; k++) {
                for (long j = 0, n = committed.get(k); j < n; j++) {
                    int order = (int) (k + j * PRODUCERS);
                    if (seen.get(order)) {
                        continue;
                    }
                    if (queued.get(order)) {
                        waiting++;
                    } else if (deadLettered.get(order)) {
                        dead++;
                    } else {
                        missing++;
                    }
                }
            }
            Map<String, Long> lag = new LinkedHashMap<>();
            for (SubscriptionStats s : broker.admin().topics().subscriptions(EVENTS)) {
                lag.put(s.name(), s.lag());
            }
            Map<String, long[]> events = new LinkedHashMap<>();
            long processedSent = seen.cardinality();
            received.forEach((name, got) -> {
                long dup = got.values().stream().filter(v -> v > 1).count();
                long ofProcessed = got.keySet().stream()
                        .filter(o -> o >= 0 && o <= Integer.MAX_VALUE && seen.get((int) (long) o))
                        .count();
                long phantom = got.size() - ofProcessed; // an event for an order never processed
                long stillWaiting = lag.getOrDefault(name, 0L);
                long absent = Math.max(0, processedSent - ofProcessed - stillWaiting);
                events.put(name, new long[] {got.size(), dup, absent, stillWaiting, phantom});
            });
            return new Check(
                    processed,
                    twice,
                    unknown,
                    waiting,
                    dead,
                    missing,
                    stockDown,
                    processedQuantity,
                    events,
                    broker.admin().queues().backlog(ORDERS));
        }

        /** The order numbers of the messages waiting in {@code queue}, by browsing it. */
        private java.util.BitSet ordersIn(String queue) {
            java.util.BitSet in = new java.util.BitSet();
            try (io.shardq.broker.browse.BrowseCursor cursor =
                    broker.browse(queue, null, io.shardq.broker.browse.BrowseCursor.Options.DEFAULTS)) {
                while (cursor.hasNext()) {
                    Object id = cursor.next().message().properties().get("orderId");
                    if (id instanceof Number n && n.longValue() >= 0 && n.longValue() <= Integer.MAX_VALUE) {
                        in.set(n.intValue());
                    }
                }
            }
            return in;
        }
    }

    /**
     * @param unknown processed orders no producer committed (phantoms)
     * @param waiting sent, not processed, still in the queue
     * @param deadLettered sent, not processed, in the queue's dead-letter queue
     * @param missing sent, not processed, and nowhere
     * @param events per subscription: received, twice, missing, still waiting (lag), phantom
     */
    record Check(
            long processed,
            long twice,
            long unknown,
            long waiting,
            long deadLettered,
            long missing,
            long stockDown,
            long processedQuantity,
            Map<String, long[]> events,
            long backlog) {}

    /** What the live view shows once. */
    record Snapshot(
            long elapsedMs,
            long sendMs,
            String phase,
            long sent,
            long processed,
            long twice,
            long backlog,
            Map<String, Long> lag,
            Map<String, Long> received,
            List<String> consumers,
            long hits,
            long misses) {
        boolean done(long total) {
            return processed >= total
                    && backlog == 0
                    && received.values().stream().allMatch(n -> n >= total);
        }

        /** Grows while consumers process orders or subscribers receive events. */
        long progress() {
            return processed
                    + received.values().stream().mapToLong(Long::longValue).sum();
        }

        String hitRatio() {
            long all = hits + misses;
            return all == 0 ? "-" : String.format(Locale.ROOT, "%.1f%%", 100.0 * hits / all);
        }
    }

    /** The end of the demo: the check and where to look next. */
    record Summary(
            long elapsedMs,
            long sent,
            long[] perProducer,
            String killed,
            long sentAtKill,
            boolean stoppedEarly,
            Check check,
            Snapshot last) {
        /** Nothing twice, nothing lost, no phantom, the stock matches what was processed. */
        boolean exactlyOnce() {
            return check.twice() == 0
                    && check.unknown() == 0
                    && check.missing() == 0
                    && check.stockDown() == check.processedQuantity()
                    && check.events().values().stream().allMatch(e -> e[1] == 0 && e[2] == 0 && e[4] == 0);
        }

        /** Every order processed and every event received: nothing still waiting. */
        boolean complete() {
            return check.processed() == sent
                    && check.waiting() == 0
                    && check.deadLettered() == 0
                    && check.backlog() == 0
                    && check.events().values().stream().allMatch(e -> e[0] == sent && e[3] == 0);
        }

        /** PASS, FAIL (something lost, twice or wrong), or NOT FINISHED (nothing wrong, some still waiting). */
        String verdict() {
            return !exactlyOnce() ? "FAIL" : complete() ? "PASS" : "NOT FINISHED";
        }

        void print(PrintWriter out) {
            out.println();
            out.println("shardq demo: " + Format.count(sent) + " orders in " + Format.duration(elapsedMs)
                    + (killed == null ? ", no consumer killed" : "; " + killed)
                    + (stoppedEarly ? "; stopped early by Ctrl-C" : ""));
            String verdict = verdict();
            out.println("exactly once: " + verdict
                    + switch (verdict) {
                        case "PASS" -> "";
                        case "FAIL" -> " (an order or event lost, processed twice, or the stock wrong: below)";
                        default ->
                            " (nothing lost or twice so far; " + Format.count(check.waiting())
                                    + " orders still waiting in " + ORDERS + (stoppedEarly ? ", left by Ctrl-C" : "")
                                    + ")";
                    });
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[] {
                "orders processed",
                Format.count(check.processed()) + " of " + Format.count(sent) + ", " + Format.count(check.twice())
                        + " twice, " + Format.count(check.waiting()) + " still waiting in the queue"
                        + (check.deadLettered() > 0 ? ", " + Format.count(check.deadLettered()) + " dead-lettered" : "")
                        + ", " + Format.count(check.missing()) + " missing (nowhere)"
                        + (check.unknown() > 0 ? ", " + Format.count(check.unknown()) + " never sent" : "")
                        + " (shardq_demo.processed)"
            });
            rows.add(new String[] {
                "inventory",
                "stock down by " + Format.count(check.stockDown()) + "; the processed orders took "
                        + Format.count(check.processedQuantity()) + " (shardq_demo.inventory)"
            });
            check.events()
                    .forEach((name, e) -> rows.add(new String[] {
                        "events: " + name,
                        Format.count(e[0]) + " received, " + Format.count(e[1]) + " twice, " + Format.count(e[3])
                                + " still waiting, " + Format.count(e[2]) + " missing"
                    }));
            rows.add(new String[] {"queue backlog", Format.count(check.backlog())});
            rows.add(new String[] {
                "price cache",
                "hit ratio " + last.hitRatio() + " (" + Format.count(last.hits()) + " hits, "
                        + Format.count(last.misses()) + " misses, entries live 5 s)"
            });
            for (String[] r : rows) {
                out.println(String.format(Locale.ROOT, "  %-18s %s", r[0], r[1]));
            }
            out.println("where to look next:");
            out.println("  ./shardq console                            the web console: destinations, subscriptions,"
                    + " instances, caches");
            out.println("  ./shardq queue stats " + ORDERS + " --rate   its shards, backlog, rates, oldest message");
            out.println("  ./shardq topic stats " + EVENTS + "          its subscriptions, their lag and retirement");
            out.println("  ./shardq cache stats " + PRICES + "          the cache's entries and expirations");
            out.println("  psql: select * from shardq_demo.inventory     what the consumers' transactions changed");
            out.println("  ./shardq perf queue --threads 1,4           the benchmark, beside a plain INSERT");
        }

        ObjectNode json() {
            ObjectNode o = Json.object();
            o.put("exactlyOnce", exactlyOnce());
            o.put("complete", complete());
            o.put("verdict", verdict());
            o.put("stoppedEarly", stoppedEarly);
            o.put("elapsedMs", elapsedMs);
            o.put("sent", sent);
            com.fasterxml.jackson.databind.node.ArrayNode producers = o.putArray("sentPerProducer");
            for (long n : perProducer) {
                producers.add(n); // producer k sent orders k, k + 4, k + 8, ...
            }
            o.put("processed", check.processed());
            o.put("processedTwice", check.twice());
            o.put("stillWaiting", check.waiting());
            o.put("deadLettered", check.deadLettered());
            o.put("missing", check.missing());
            o.put("neverSent", check.unknown());
            o.put("processedQuantity", check.processedQuantity());
            o.put("stockDown", check.stockDown());
            o.put("backlog", check.backlog());
            o.put("killed", killed);
            o.put("sentAtKill", sentAtKill);
            ObjectNode events = o.putObject("subscriptions");
            check.events().forEach((name, e) -> events.putObject(name)
                    .put("received", e[0])
                    .put("twice", e[1])
                    .put("stillWaiting", e[3])
                    .put("missing", e[2]));
            o.putObject("priceCache").put("hits", last.hits()).put("misses", last.misses());
            com.fasterxml.jackson.databind.node.ArrayNode cs = o.putArray("consumers");
            last.consumers().forEach(cs::add);
            return o;
        }
    }
}

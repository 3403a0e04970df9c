package io.shardq.cli;

import io.shardq.broker.kv.Codec;
import io.shardq.jms.SessionCache;
import io.shardq.jms.ShardQConnectionFactory;
import io.shardq.jms.ShardQSession;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * One consumer process of {@code shardq demo} (hidden: the demo starts it, and kills one with
 * {@code kill -9}). It is what an application's consumer looks like on ShardQ: one transacted JMS
 * session takes an order, updates the inventory table on the session's own JDBC connection,
 * reads or fills the price in the key/value cache, publishes an event on the topic, and commits
 * all four at once. It prints {@code READY}, then a {@code STATS processed hits misses} line twice
 * a second, and stops after the transaction in hand when its stdin says {@code STOP} or closes.
 */
@Command(name = "demo-consumer", hidden = true, description = "One consumer process of 'shardq demo'.")
final class DemoConsumerCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

    @Option(names = "--index", required = true, description = "the consumer's number in the demo")
    int index;

    private volatile boolean stop;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = cli.spec.commandLine().getOut();
        // Ctrl-C in the terminal reaches the whole process group: the demo decides when its
        // consumers stop (STOP on stdin, or stdin closing when the demo is gone)
        sun.misc.Signal.handle(new sun.misc.Signal("INT"), sig -> {});
        Thread watcher = new Thread(this::watchStdin, "shardq-demo-stdin-1");
        watcher.setDaemon(true);
        watcher.start();
        long processed = 0;
        long hits = 0;
        long misses = 0;
        long lastReport = 0;
        try (ShardQConnectionFactory factory = new ShardQConnectionFactory(cli.connection.config("shardq demo consumer "
                        + index + " (" + ProcessHandle.current().pid() + ")"));
                Connection c = factory.createConnection()) {
            c.start();
            ShardQSession session = (ShardQSession) c.createSession(Session.SESSION_TRANSACTED);
            MessageConsumer orders = session.createConsumer(session.createQueue(DemoCommand.ORDERS));
            MessageProducer events = session.createProducer(session.createTopic(DemoCommand.EVENTS));
            SessionCache<String, String> prices = session.cache(DemoCommand.PRICES, Codec.utf8(), Codec.utf8());
            out.println("READY " + ProcessHandle.current().pid());
            out.flush();
            while (!stop) {
                Message m = orders.receive(200);
                if (m != null) {
                    long order = m.getLongProperty("orderId");
                    String item = m.getStringProperty("item");
                    int qty = m.getIntProperty("qty");
                    take(session, order, item, qty);
                    String price = prices.get(item);
                    if (price == null) {
                        misses++;
                        price = DemoCommand.priceOf(item);
                        prices.put(item, price, PRICE_TTL);
                    } else {
                        hits++;
                    }
                    TextMessage event = session.createTextMessage(
                            "order " + order + ": " + qty + " x " + item + " at " + price + " taken");
                    event.setLongProperty("orderId", order);
                    event.setIntProperty("consumer", index);
                    events.send(event);
                    try {
                        session.commit();
                        processed++;
                    } catch (jakarta.jms.TransactionRolledBackException e) {
                        // as an application does: the whole transaction (stock, record, cache entry,
                        // event) rolled back, and the order is delivered again (a deadlock between
                        // concurrent commits was seen on a loaded machine)
                        System.err.println("demo consumer " + index + ": order " + order
                                + " rolled back, it comes again: " + e.getMessage());
                    }
                }
                long now = System.nanoTime();
                if (now - lastReport > 500_000_000L) {
                    out.println("STATS " + processed + " " + hits + " " + misses);
                    out.flush();
                    lastReport = now;
                }
            }
        }
        out.println("STATS " + processed + " " + hits + " " + misses);
        out.println("STOPPED");
        out.flush();
        return 0;
    }

    /** Prices live a few seconds in the cache, so the hit ratio shows misses being filled again. */
    private static final Duration PRICE_TTL = Duration.ofSeconds(5);

    /** The order's stock change and its once-only record, in the session's transaction. */
    private void take(ShardQSession session, long order, String item, int qty) throws JMSException {
        try {
            java.sql.Connection db = session.getConnection();
            try (PreparedStatement st =
                    db.prepareStatement("update shardq_demo.inventory set stock = stock - ? where item = ?")) {
                st.setInt(1, qty);
                st.setString(2, item);
                if (st.executeUpdate() != 1) {
                    throw new IllegalStateException("no inventory row for " + item);
                }
            }
            try (PreparedStatement st = db.prepareStatement("insert into shardq_demo.processed (order_id, consumer)"
                    + " values (?, ?) on conflict (order_id) do update set deliveries ="
                    + " shardq_demo.processed.deliveries + 1")) {
                st.setLong(1, order);
                st.setInt(2, index);
                st.executeUpdate();
            }
        } catch (SQLException e) {
            JMSException j = new JMSException("demo consumer " + index + ": " + e.getMessage());
            j.setLinkedException(e);
            throw j;
        }
    }

    private void watchStdin() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.strip().equals("STOP")) {
                    break;
                }
            }
        } catch (java.io.IOException e) {
            // the demo is gone: stop as if told to
        }
        stop = true;
    }
}

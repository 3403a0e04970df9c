package io.shardq.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardq.broker.Admin;
import io.shardq.broker.QueueStats;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.catalog.Names;
import io.shardq.tools.TextTable;
import java.io.PrintWriter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "stats",
        description = {
            "Show a queue's backlog, cursors, lease holders, slices, table size, consumers and purges.",
            "Per shard: the next sequence number, the consumer cursor, the messages waiting and the instance holding the dequeue lease. With --rate also the enqueue and dequeue rates, from two samples 1 s apart.",
            "Consumers: the open consumers of the queue per live instance and in total, as the database counts them (each instance writes its count at its heartbeat, so it may lag by up to one heartbeat). Purges: how many, the messages they discarded and when the last one ran."
        })
final class QueueStatsCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

    /** How long --rate samples: long enough to see traffic, short enough to wait for. */
    static final long RATE_SAMPLE_MILLIS = 1000;

    @Parameters(paramLabel = "NAME", description = QueueCommand.NAME_HELP)
    String name;

    @Option(
            names = "--rate",
            description = "sample twice, " + RATE_SAMPLE_MILLIS + " ms apart, and show the enqueue and dequeue"
                    + " rates of that interval")
    boolean rate;

    @Mixin
    JsonOption output;

    @Override
    public Integer call() throws InterruptedException {
        Names.checkDestination(name);
        PrintWriter out = cli.spec.commandLine().getOut();
        try (AdminSession broker = cli.connection.adminSession()) {
            QueueCommand.require(broker.admin(), name);
            long t0 = System.nanoTime();
            QueueStats s = broker.admin().queues().stats(name);
            Rates rates = null;
            if (rate) {
                Thread.sleep(RATE_SAMPLE_MILLIS);
                long t1 = System.nanoTime();
                QueueStats s2 = broker.admin().queues().stats(name);
                double seconds = (t1 - t0) / 1e9;
                rates = new Rates(
                        (s2.enqueued() - s.enqueued()) / seconds,
                        ((s2.enqueued() - s2.backlog()) - (s.enqueued() - s.backlog())) / seconds,
                        seconds);
                s = s2;
            }
            Map<Long, String> holders = holderNames(broker.admin().cluster().leases(name));
            List<Admin.Consumers> consumers = broker.admin().cluster().consumersOf(name, StatusCommand.ALIVE_SECONDS);
            Admin.Purges purges = broker.admin().queues().purgesOf(name);
            if (output.json) {
                ObjectNode o = json(s, rates, holders);
                purgesJson(o, purges);
                consumersJson(o, consumers);
                Json.print(out, o);
            } else {
                print(out, s, rates, holders, consumers, purges);
            }
            return 0;
        }
    }

    record Rates(double enqueuePerSecond, double dequeuePerSecond, double seconds) {}

    private static void print(
            PrintWriter out,
            QueueStats s,
            Rates rates,
            Map<Long, String> holders,
            List<Admin.Consumers> consumers,
            Admin.Purges purges) {
        DestinationInfo d = s.destination();
        out.println("queue " + d.name());
        out.println("  settings        " + QueueCommand.settings(d));
        out.println("  waiting         " + Format.messages(s.backlog()));
        if (s.scheduled() > 0) {
            out.println("  delayed         " + Format.messages(s.scheduled())
                    + " not due yet (delivery delay: not in the backlog until due)");
        }
        out.println("  enqueued        " + Format.messages(s.enqueued()) + " since the queue was created");
        out.println("  oldest waiting  "
                + (s.oldestMessageAgeMillis() < 0 ? "-" : Format.duration(s.oldestMessageAgeMillis()) + " old"));
        out.println("  slices          " + s.slicesInUse() + " in use, " + s.slicesFree() + " free");
        out.println("  table size      " + Format.bytes(s.tableBytes()) + ", " + Format.count(s.deadTuples())
                + " dead tuples");
        if (rates != null) {
            out.println("  rates           enqueue " + Format.rate(rates.enqueuePerSecond()) + ", dequeue "
                    + Format.rate(rates.dequeuePerSecond()) + " (over the last "
                    + Format.duration(Math.round(rates.seconds() * 1000)) + ")");
        }
        long open = consumers.stream().mapToLong(Admin.Consumers::consumers).sum();
        out.println("  consumers       " + Format.count(open) + " open"
                + (open == 0 ? "" : " on " + instances(consumers.size()))
                + " (counted at each instance's heartbeat: may lag by up to one)");
        out.println("  purges          "
                + (purges.purges() == 0
                        ? "never"
                        : Format.count(purges.purges()) + " (" + Format.messages(purges.purged())
                                + " discarded), the last at " + Format.instant(purges.lastPurgeAtMillis())));
        out.println();
        TextTable t = Format.table("SHARD", "NEXT SEQ", "CURSOR", "WAITING", "LEASE HOLDER", "STATE");
        for (QueueStats.ShardStats sh : s.shards()) {
            t.row(
                    sh.shardNo(),
                    sh.nextSeq(),
                    sh.position(),
                    sh.backlog(),
                    holder(sh.leaseInstance(), holders),
                    sh.draining() ? "draining" : "active");
        }
        t.print(out);
        if (!consumers.isEmpty()) {
            out.println();
            TextTable c = Format.table("INSTANCE", "CONSUMERS");
            for (Admin.Consumers x : consumers) {
                c.row(x.instanceId() + (x.instanceName() == null ? "" : " " + x.instanceName()), x.consumers());
            }
            c.print(out);
        }
    }

    private static String instances(int n) {
        return n == 1 ? "1 instance" : Format.count(n) + " instances";
    }

    /**
     * The purge counts ({@code QueueAdmin.purgesOf}) in {@code queue stats --json} and the console's
     * {@code /api/queues/NAME}: {@code purged} (messages discarded in all), {@code purges} and {@code
     * lastPurgeAt} (epoch millis, null when never purged).
     */
    static void purgesJson(ObjectNode o, Admin.Purges purges) {
        o.put("purged", purges.purged());
        o.put("purges", purges.purges());
        if (purges.purges() == 0 || purges.lastPurgeAtMillis() == 0) {
            o.putNull("lastPurgeAt");
        } else {
            o.put("lastPurgeAt", purges.lastPurgeAtMillis());
        }
    }

    /**
     * A destination's open consumers across the live instances (the database's count, each
     * instance's as of its last heartbeat): {@code consumers} in all, and {@code
     * consumersByInstance} [{instanceId, instanceName, subscription, consumers}] (subscription null
     * for a queue). Also the console's, for queues and topics.
     */
    static void consumersJson(ObjectNode o, List<Admin.Consumers> consumers) {
        long total = 0;
        ArrayNode by = Json.array();
        for (Admin.Consumers c : consumers) {
            total += c.consumers();
            ObjectNode x = by.addObject();
            x.put("instanceId", c.instanceId());
            x.put("instanceName", c.instanceName());
            x.put("subscription", c.subscription().isEmpty() ? null : c.subscription());
            x.put("consumers", c.consumers());
        }
        o.put("consumers", total);
        o.set("consumersByInstance", by);
    }

    /** {@code queue stats --json} (and the console's {@code /api/queues/NAME}, its rates from its samples). */
    static ObjectNode json(QueueStats s, Rates rates, Map<Long, String> holders) {
        DestinationInfo d = s.destination();
        ObjectNode o = Json.object();
        o.put("name", d.name());
        o.put("shardCount", d.shardCount());
        if (d.shrinking()) {
            o.put("shrinkingTo", d.activeShards());
        } else {
            o.putNull("shrinkingTo");
        }
        o.put("sliceSize", d.sliceSize());
        o.put("maxAttempts", d.maxAttempts());
        o.put("deadLetterQueue", d.deadLetterQueue());
        o.put("enqueueEnabled", d.enqueueEnabled());
        o.put("dequeueEnabled", d.dequeueEnabled());
        o.put("backlog", s.backlog());
        o.put("scheduled", s.scheduled());
        o.put("enqueued", s.enqueued());
        if (s.oldestMessageAgeMillis() < 0) {
            o.putNull("oldestMessageAgeMillis");
        } else {
            o.put("oldestMessageAgeMillis", s.oldestMessageAgeMillis());
        }
        o.put("slicesInUse", s.slicesInUse());
        o.put("slicesFree", s.slicesFree());
        o.put("tableBytes", s.tableBytes());
        o.put("deadTuples", s.deadTuples());
        if (rates != null) {
            ObjectNode r = o.putObject("rates");
            r.put("enqueuePerSecond", rates.enqueuePerSecond());
            r.put("dequeuePerSecond", rates.dequeuePerSecond());
            r.put("sampleSeconds", rates.seconds());
        }
        ArrayNode shards = o.putArray("shards");
        for (QueueStats.ShardStats sh : s.shards()) {
            ObjectNode x = shards.addObject();
            x.put("shard", sh.shardNo());
            x.put("nextSeq", sh.nextSeq());
            x.put("cursor", sh.position());
            x.put("backlog", sh.backlog());
            x.put("draining", sh.draining());
            if (sh.leaseInstance() == 0) {
                x.putNull("leaseInstance");
                x.putNull("leaseHolder");
            } else {
                x.put("leaseInstance", sh.leaseInstance());
                x.put("leaseHolder", holders.get(sh.leaseInstance()));
            }
        }
        return o;
    }

    private static String holder(long instance, Map<Long, String> names) {
        if (instance == 0) {
            return "-";
        }
        String n = names.get(instance);
        return n == null ? "instance " + instance : instance + " " + n;
    }

    /** Names of the instances holding the queue's dequeue leases: lease holders are shown by name. */
    static Map<Long, String> holderNames(List<Admin.Lease> leases) {
        Map<Long, String> names = new HashMap<>();
        for (Admin.Lease l : leases) {
            if (l.instanceName() != null) {
                names.put(l.instanceId(), l.instanceName());
            }
        }
        return names;
    }
}

package io.shardq.perf;

import io.shardq.broker.BrokerConfig;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;

/**
 * One peer instance of {@code perf queue --instances N}: a JVM with its own ShardQ connection
 * factory that joins the run's queue (it neither creates nor drops it) and runs producers and
 * consumers there until told to stop. Started and driven by {@link PeerInstances}, whose javadoc
 * gives the line protocol; connects with this JVM's settings ({@code -Dshardq.*}, the
 * environment), which the parent passes on.
 *
 * <p>Arguments: queue, threads, payload bytes, batch size, unsafe ({@code true}/{@code false}).
 */
public final class QueuePeer {
    private QueuePeer() {}

    public static void main(String[] args) throws Exception {
        String queue = args[0];
        Settings settings = new Settings(
                Integer.parseInt(args[1]),
                Integer.parseInt(args[2]),
                Integer.parseInt(args[3]),
                1,
                true,
                Boolean.parseBoolean(args[4]));
        Writer out = new OutputStreamWriter(System.out, StandardCharsets.UTF_8);
        ShardQSystem system = ShardQSystem.joining(BrokerConfig::builder, queue);
        Load load = new Load(system, settings, MicroClock.system());
        try {
            system.setUp(null, settings);
            load.start();
            PeerInstances.reply(out, "READY");
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null && !line.equals("STOP")) {
                switch (line) {
                    case "COUNTS" -> PeerInstances.reply(out, "COUNTS " + load.enqueued() + " " + load.dequeued());
                    case "LATENCIES" ->
                        PeerInstances.reply(out, "LATENCIES " + PeerInstances.encode(load.takeLatencies()));
                    default -> {
                        // an empty line (the parent waiting for READY) or an unknown request: nothing to say
                    }
                }
            }
        } finally {
            load.stop();
            system.tearDown();
        }
        if (load.errors() > 0) {
            System.err.println(
                    "perf peer: " + load.errors() + " failed calls, the first: " + Runner.describe(load.firstError()));
        }
        PeerInstances.reply(out, "DONE");
        System.exit(0);
    }
}

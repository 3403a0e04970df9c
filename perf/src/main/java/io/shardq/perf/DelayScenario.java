package io.shardq.perf;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * One run of {@code perf delay}: {@code messages} sent with a delivery delay, their delivery times
 * spread at random over {@code spread}, the first due {@code lead} after the scheduling starts.
 *
 * @param producers threads scheduling the messages, each a transacted session sending {@code
 *     batch} per commit
 * @param consumers threads receiving, each a transacted session receiving up to {@code batch} per
 *     commit
 * @param drainTimeout how long after the last delivery time the run waits for the last deliveries
 */
record DelayScenario(
        int messages,
        Duration spread,
        Duration lead,
        int producers,
        int consumers,
        int batch,
        int payloadBytes,
        int shards,
        Duration drainTimeout,
        String loadAtStart) {

    /** The figures: 1,000,000 messages due over 60 s. */
    static final int DEFAULT_MESSAGES = 1_000_000;

    DelayScenario {
        require(messages >= 1, "messages " + messages, "at least 1");
        require(spread.toMillis() >= 1, "spread " + spread, "at least 1 ms");
        require(!lead.isNegative(), "lead " + lead, "0 or more");
        require(producers >= 1 && producers <= messages, "producers " + producers, "1 to the number of messages");
        require(consumers >= 1, "consumers " + consumers, "at least 1");
        require(batch >= 1 && batch <= 10_000, "batch " + batch, "1 to 10,000 messages");
        require(
                payloadBytes >= Payloads.HEADER_BYTES,
                "payload " + payloadBytes,
                "at least " + Payloads.HEADER_BYTES + " bytes (the send timestamp and a sequence number)");
        require(shards >= 1, "shards " + shards, "at least 1");
        require(!drainTimeout.isNegative(), "drain timeout " + drainTimeout, "0 or more");
    }

    private static void require(boolean ok, String what, String allowed) {
        if (!ok) {
            throw new IllegalArgumentException(what + " is invalid: expected " + allowed);
        }
    }

    /** {@code name  value} lines of the scenario, printed after the environment. */
    List<String[]> facts() {
        return List.of(
                new String[] {"scenario", "delay"},
                new String[] {
                    "messages",
                    String.format(
                            Locale.ROOT,
                            "%,d persistent, %d bytes, each with a delivery delay (setDeliveryDelay before its send)",
                            messages,
                            payloadBytes)
                },
                new String[] {
                    "delivery times",
                    "uniformly at random over " + seconds(spread) + " s, the first " + seconds(lead)
                            + " s after scheduling starts (producers send in random order of delivery time)"
                },
                new String[] {"producers", producers + ", each a transacted session: " + batch + " send() then commit()"
                },
                new String[] {
                    "consumers",
                    consumers + ", each a transacted session: receive(100 ms), then receiveNoWait() up to " + batch
                            + ", then commit()"
                },
                new String[] {"shards", Integer.toString(shards)},
                new String[] {"drain", "up to " + seconds(drainTimeout) + " s after the last delivery time"},
                new String[] {"shardq", Scenario.shardqSettings() + ", " + schedulePoll()},
                new String[] {"load at start", loadAtStart});
    }

    private static String schedulePoll() {
        io.shardq.broker.BrokerConfig c =
                io.shardq.broker.BrokerConfig.builder().build();
        return "scheduled messages polled every " + c.getInt(io.shardq.broker.BrokerProperty.SCHEDULE_POLL_MS)
                + " ms at most (shardq.schedule.poll-ms)";
    }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0
                ? Long.toString(d.toSeconds())
                : String.format(Locale.ROOT, "%.1f", d.toMillis() / 1000.0);
    }
}

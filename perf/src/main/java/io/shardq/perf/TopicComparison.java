package io.shardq.perf;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The ratios of {@code perf topic}, between systems measured at the same publisher count in the
 * same run, and issue 10's targets: deliveries per second at least {@value #DELIVERIES_TARGET}x
 * the queue's end-to-end rate, WAL per delivered message at most {@value #WAL_TARGET}x a queue
 * message's, every subscription keeping up.
 */
final class TopicComparison {
    static final double DELIVERIES_TARGET = 8.0;
    static final double WAL_TARGET = 0.2;

    private final List<TopicStep> steps;

    TopicComparison(List<TopicStep> steps) {
        this.steps = List.copyOf(steps);
    }

    List<TopicStep> steps() {
        return steps;
    }

    TopicStep get(String system, int publishers) {
        for (TopicStep s : steps) {
            if (s.system().equals(system) && s.publishers() == publishers) {
                return s;
            }
        }
        return null;
    }

    /**
     * Messages received per second: the queue's dequeues, the topic's deliveries (all
     * subscriptions); NaN for the ceiling.
     */
    static double deliveryRate(StepResult r) {
        return r.consumes() ? r.dequeueRate() : Double.NaN;
    }

    /**
     * WAL of the window per message received. For a queue that is its WAL per message (what it
     * writes to send and to consume one); for the topic, one stored copy and its subscriptions'
     * cursor moves, shared by the deliveries.
     */
    static double walPerDelivery(StepResult r) {
        if (!r.consumes() || Double.isNaN(r.walBytesPerMessage()) || r.dequeued() <= 0) {
            return Double.NaN;
        }
        return Rates.perMessage(r.walBytesPerMessage() * r.enqueued(), r.dequeued());
    }

    /** This step's deliveries per second / the queue's messages per second at the same publishers. */
    double deliveriesVsQueue(TopicStep s) {
        TopicStep q = get(TopicScenario.QUEUE, s.publishers());
        return q == null ? Double.NaN : Rates.ratio(deliveryRate(s.result()), deliveryRate(q.result()));
    }

    /** This step's publishes (enqueues) per second / the ceiling's INSERTed rows per second. */
    double publishesVsCeiling(TopicStep s) {
        TopicStep c = get(TopicScenario.CEILING, s.publishers());
        return c == null
                ? Double.NaN
                : Rates.ratio(s.result().enqueueRate(), c.result().enqueueRate());
    }

    /** WAL per delivered message / the queue's WAL per message at the same publishers. */
    double walVsQueue(TopicStep s) {
        TopicStep q = get(TopicScenario.QUEUE, s.publishers());
        return q == null ? Double.NaN : Rates.ratio(walPerDelivery(s.result()), walPerDelivery(q.result()));
    }

    /** Publish commit p50 / the queue's at the same publishers. */
    double publishCostVsQueue(TopicStep s) {
        TopicStep q = get(TopicScenario.QUEUE, s.publishers());
        if (q == null || s.publishCommits().count() == 0 || q.publishCommits().count() == 0) {
            return Double.NaN;
        }
        return Rates.ratio(s.publishCommits().p50(), q.publishCommits().p50());
    }

    /** One line per topic step saying which of issue 10's targets it met. */
    List<String> verdicts() {
        return verdicts(false);
    }

    /**
     * One line per topic step saying which of issue 10's targets it met. At a paced rate the
     * queue and the topic publish the same messages per second, so deliveries/s against the
     * queue's is only the subscription count: not a target then.
     */
    List<String> verdicts(boolean paced) {
        List<String> out = new ArrayList<>();
        for (TopicStep s : steps) {
            if (!s.system().equals(TopicScenario.TOPIC)) {
                continue;
            }
            double d = paced ? Double.NaN : deliveriesVsQueue(s);
            double w = walVsQueue(s);
            out.add(String.format(
                    Locale.ROOT,
                    "x%d: deliveries/s %s the queue's (target >= %.0fx): %s; WAL per delivery %s a queue"
                            + " message's (target <= %.1fx): %s; subscriptions kept up: %d of %d: %s",
                    s.publishers(),
                    Numbers.ratio(d),
                    DELIVERIES_TARGET,
                    paced ? "not a target at a paced rate" : verdict(Double.isNaN(d) ? null : d >= DELIVERIES_TARGET),
                    Numbers.ratio(w),
                    WAL_TARGET,
                    verdict(Double.isNaN(w) ? null : w <= WAL_TARGET),
                    s.keptUp(),
                    s.backlogs().size(),
                    verdict(s.backlogs().isEmpty() ? null : s.allKeptUp())));
        }
        return out;
    }

    private static String verdict(Boolean met) {
        return met == null ? "not measured" : met ? "met" : "NOT MET";
    }
}

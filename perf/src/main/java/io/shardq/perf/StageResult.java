package io.shardq.perf;

import java.util.List;

/**
 * What one stage of the {@code mixed} scenario did over its measured window: one row per
 * template, and the same figures for all templates together.
 *
 * @param users concurrent users of the stage
 * @param seconds length of the measured window
 * @param templates per template, in workload order
 * @param all every template together; its latency is over every committed transaction
 * @param backlog messages in the queue after the stage's users stopped
 * @param walBytesPerTransaction WAL of the whole server in the window per committed transaction
 */
record StageResult(
        int users,
        double seconds,
        List<TemplateResult> templates,
        TemplateResult all,
        long backlog,
        double walBytesPerTransaction) {

    static final String ALL = "all";

    StageResult {
        templates = List.copyOf(templates);
    }

    /** The template rows, then the "all" row. */
    List<TemplateResult> rows() {
        return java.util.stream.Stream.concat(templates.stream(), java.util.stream.Stream.of(all))
                .toList();
    }

    /**
     * One template (or all of them) in one stage.
     *
     * @param weight the template's weight; for "all", the total
     * @param counts committed and failed transactions, messages sent, received and browsed, in the window
     * @param share committed transactions of this template / all committed in the window
     * @param firstError the first failure of the stage (warm-up included), or null
     */
    record TemplateResult(
            String template,
            int weight,
            TemplateMeter.Counts counts,
            double seconds,
            double share,
            LatencyStats latency,
            String firstError) {

        double transactionRate() {
            return seconds > 0 ? counts.committed() / seconds : Double.NaN;
        }

        /** Messages sent and received per second (browsed ones are not moved, not counted). */
        double messageRate() {
            return seconds > 0 ? counts.messages() / seconds : Double.NaN;
        }

        double browseRate() {
            return seconds > 0 ? counts.browsed() / seconds : Double.NaN;
        }
    }
}

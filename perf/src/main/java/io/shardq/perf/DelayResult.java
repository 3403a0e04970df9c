package io.shardq.perf;

import java.util.List;

/**
 * What {@code perf delay} measured. Lateness is a message's delivery (the moment {@code receive}
 * returned it, on the consumer's wall clock) minus its {@code JMSDeliveryTime}, in microseconds;
 * a negative one is an early delivery, counted in {@code early} and recorded as 0 in {@code
 * lateness}.
 *
 * @param lateSends messages whose delivery time had already passed when their producer came to
 *     send them (the scheduling took longer than the lead); sent with a 1 ms delay and measured
 *     against their own {@code JMSDeliveryTime} like the others
 * @param scheduleSeconds from the first send to the last producer's last commit
 * @param deliverySeconds from the first delivery time to the last delivery
 * @param duplicates deliveries of a message already delivered (must be 0)
 * @param missing messages never delivered by the end of the drain (must be 0)
 * @param minLatenessMicros the smallest lateness seen (negative: the earliest early delivery)
 * @param leftScheduled messages still in the scheduled area at the end (must be 0)
 * @param scheduling what the server ran while the producers scheduled
 * @param delivering what the server ran from the end of the scheduling to the last delivery (the
 *     mover, the consumers and the background services)
 * @param walBytesPerMessage WAL of the whole server from the first send to the last delivery, per
 *     message
 * @param sqlReadsPerMessage the consumers' statements reading queue rows per delivery (the engine's
 *     own count)
 * @param timeline lateness by second of delivery time, from the first due second
 */
record DelayResult(
        long scheduled,
        long lateSends,
        double scheduleSeconds,
        long delivered,
        long duplicates,
        long missing,
        long early,
        long minLatenessMicros,
        LatencyStats lateness,
        double deliverySeconds,
        long leftScheduled,
        SqlCounters.Delta scheduling,
        SqlCounters.Delta delivering,
        double walBytesPerMessage,
        double sqlReadsPerMessage,
        List<Second> timeline,
        long errors,
        String firstError,
        String loadAtEnd) {

    /** Lateness of the messages due in one second of the spread. */
    record Second(int second, long delivered, long p50Micros, long p99Micros, long maxMicros) {}

    /** Messages scheduled per second while scheduling. */
    double scheduleRate() {
        return scheduleSeconds <= 0 ? Double.NaN : scheduled / scheduleSeconds;
    }

    /** Deliveries per second from the first delivery time to the last delivery. */
    double deliveryRate() {
        return deliverySeconds <= 0 ? Double.NaN : delivered / deliverySeconds;
    }

    /** Every message delivered exactly once, none early, none left, no failed call. */
    boolean balanced() {
        return delivered == scheduled
                && duplicates == 0
                && missing == 0
                && early == 0
                && leftScheduled == 0
                && errors == 0;
    }

    /** Statements per delivered message in the delivery phase; NaN without pg_stat_statements. */
    double statementsPerDelivery() {
        return delivering.statementsCounted() ? Rates.perMessage(delivering.statements(), delivered) : Double.NaN;
    }

    /** Statements per scheduled message while scheduling; NaN without pg_stat_statements. */
    double statementsPerSchedule() {
        return scheduling.statementsCounted() ? Rates.perMessage(scheduling.statements(), scheduled) : Double.NaN;
    }

    /** Transactions (commits and rollbacks, pg_stat_database) per delivered message in the delivery phase. */
    double transactionsPerDelivery() {
        return Rates.perMessage(delivering.transactions(), delivered);
    }

    double transactionsPerSchedule() {
        return Rates.perMessage(scheduling.transactions(), scheduled);
    }
}

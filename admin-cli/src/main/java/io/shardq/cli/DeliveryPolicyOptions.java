package io.shardq.cli;

import io.shardq.broker.Admin;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.catalog.Names;
import java.time.Duration;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The delivery-policy options of {@code queue alter} and {@code topic alter}: an expiry queue and
 * a redelivery delay of the destination's own ({@code shardq.set_delivery_policy}).
 */
final class DeliveryPolicyOptions {
    static final String NAMES =
            "--expiry-queue, --no-expiry-queue, --redelivery-delay, --redelivery-multiplier or --message-groups";

    @Option(
            names = "--expiry-queue",
            paramLabel = "QUEUE",
            description = "where messages found expired at delivery go (default: they are dropped)")
    String expiryQueue;

    @Option(names = "--no-expiry-queue", description = "drop messages found expired at delivery (the default)")
    boolean noExpiryQueue;

    @Option(
            names = "--redelivery-delay",
            paramLabel = "DURATION",
            converter = Durations.Converter.class,
            description = "wait before a message whose delivery failed is delivered again (500ms, 5s, 1m; 0: at once);"
                    + " overrides shardq.redelivery.delay-ms for this destination")
    Duration redeliveryDelay;

    @Option(
            names = "--redelivery-multiplier",
            paramLabel = "X",
            description = "back-off: the delay after the n-th failed delivery is the delay x X^(n-1), 1 or more")
    Double redeliveryMultiplier;

    @Option(
            names = "--message-groups",
            paramLabel = "on|off",
            arity = "1",
            converter = OnOff.class,
            description = "on: a message with a JMSXGroupID goes to the shard of its group, and each shard is taken by"
                    + " one consumer at a time, so a group's messages reach one consumer at a time, in order")
    Boolean messageGroups;

    /** "on"/"off" (also true/false). */
    static final class OnOff implements CommandLine.ITypeConverter<Boolean> {
        @Override
        public Boolean convert(String value) {
            return switch (value.toLowerCase(java.util.Locale.ROOT)) {
                case "on", "true" -> true;
                case "off", "false" -> false;
                default -> throw new CommandLine.TypeConversionException("expected on or off, got \"" + value + "\"");
            };
        }
    }

    /** True when any of these options was given. */
    boolean given() {
        return expiryQueue != null
                || noExpiryQueue
                || redeliveryDelay != null
                || redeliveryMultiplier != null
                || messageGroups != null;
    }

    /** Usage errors, before anything is connected. */
    void check(CommandLine commandLine) {
        if (expiryQueue != null && noExpiryQueue) {
            throw new CommandLine.ParameterException(
                    commandLine, "--expiry-queue and --no-expiry-queue contradict each other: give one");
        }
        if (redeliveryDelay != null && redeliveryDelay.toMillis() > Integer.MAX_VALUE) {
            throw new CommandLine.ParameterException(
                    commandLine, "--redelivery-delay " + redeliveryDelay + " is too long: at most 24 days");
        }
        if (expiryQueue != null) {
            Names.checkDestination(expiryQueue);
        }
    }

    /** Sets what was given; returns the destination as it is then (or {@code current} when nothing was given). */
    DestinationInfo apply(Admin admin, String name, DestinationInfo current) {
        if (!given()) {
            return current;
        }
        return admin.setDeliveryPolicy(
                name,
                noExpiryQueue ? "" : expiryQueue,
                redeliveryDelay == null ? null : (int) redeliveryDelay.toMillis(),
                redeliveryMultiplier,
                messageGroups);
    }

    /** The policy's part of a destination's settings line ("" when it has none of its own). */
    static String describe(DestinationInfo d) {
        return (d.expiryName() == null ? "" : ", expired messages to " + d.expiryName())
                + (d.redeliveryDelayMs() == null
                        ? ""
                        : ", redelivery after " + Durations.format(d.redeliveryDelayMs())
                                + (d.redeliveryMultiplier() == null || d.redeliveryMultiplier() == 1.0
                                        ? ""
                                        : " x" + d.redeliveryMultiplier() + " per attempt"))
                + (d.messageGroups() ? ", message groups on" : "");
    }
}

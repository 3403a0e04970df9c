package io.shardq.cli;

import io.shardq.broker.Admin;
import io.shardq.broker.TopicInfo;
import io.shardq.broker.catalog.Names;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "alter",
        description = {
            "Change a topic's settings and its expiry policy.",
            "More shards take new messages at once; with fewer, the highest shards drain (no new messages) and are retired once every subscription consumed them, while the messages published meanwhile wait on the active shards (docs/design/resharding.md). Without a policy a subscription that stops consuming keeps its messages (and their slices) for ever; with --max-lag or --max-age the maintenance leader expires the backlog beyond the limit, counts it on the subscription (shardq subscription list, EXPIRED) and logs it. Running instances pick changes up within a heartbeat."
        })
final class TopicAlterCommand implements Callable<Integer> {
    @Mixin
    CommandContext cli;

    @Parameters(paramLabel = "NAME", description = TopicCommand.NAME_HELP)
    String name;

    @Mixin
    AlterOptions storage;

    @Option(
            names = "--max-lag",
            paramLabel = "N",
            description = "messages a subscription may fall behind before its backlog expires, shared evenly by"
                    + " the shards (each keeps N / shards); 0 removes the limit")
    Long maxLag;

    @Option(
            names = "--max-age",
            paramLabel = "DURATION",
            converter = Seconds.class,
            description = "age of a subscription's oldest unconsumed message beyond which its backlog expires:"
                    + " seconds, or a number with s, m, h or d (90s, 30m, 12h, 7d); 0 removes the limit")
    Long maxAgeSeconds;

    @Mixin
    DeliveryPolicyOptions policy;

    @Override
    public Integer call() {
        if (!storage.given() && maxLag == null && maxAgeSeconds == null && !policy.given()) {
            throw new CommandLine.ParameterException(
                    cli.spec.commandLine(),
                    "nothing to change: give " + AlterOptions.NAMES + ", --max-lag, --max-age, "
                            + DeliveryPolicyOptions.NAMES);
        }
        policy.check(cli.spec.commandLine());
        if (maxLag != null && maxLag < 0) {
            throw new CommandLine.ParameterException(
                    cli.spec.commandLine(),
                    "--max-lag " + maxLag + " is invalid: expected 0 (no limit) or more messages");
        }
        Names.checkDestination(name);
        storage.check(cli.spec);
        PrintWriter out = cli.spec.commandLine().getOut();
        try (AdminSession broker = cli.connection.adminSession()) {
            Admin admin = broker.admin();
            TopicInfo before = TopicCommand.require(admin, name);
            if (storage.given() || maxLag != null || maxAgeSeconds != null) {
                admin.topics()
                        .alter(
                                name,
                                storage.shards,
                                storage.sliceSize,
                                storage.maxAttempts,
                                storage.deadLetterQueue,
                                maxLag,
                                maxAgeSeconds);
            }
            policy.apply(admin, name, before.destination());
            TopicInfo t = admin.topics().get(name);
            boolean unchanged = t.destination().equals(before.destination())
                    && java.util.Objects.equals(t.maxLag(), before.maxLag())
                    && java.util.Objects.equals(t.maxAgeSeconds(), before.maxAgeSeconds());
            out.println((unchanged ? "topic " + name + " unchanged: " : "altered topic " + name + ": ")
                    + TopicCommand.settings(t));
            if (!unchanged && (t.maxLag() != null || t.maxAgeSeconds() != null)) {
                out.println("subscriptions beyond the limit lose their backlog within a heartbeat of the maintenance"
                        + " leader; shardq subscription list " + name + " shows what each lost (EXPIRED)");
            }
            return 0;
        }
    }

    /** Seconds from "3600", "90s", "30m", "12h" or "7d". */
    static final class Seconds implements CommandLine.ITypeConverter<Long> {
        private static final Pattern DURATION = Pattern.compile("(\\d{1,12})\\s*(s|m|min|h|d)?");

        @Override
        public Long convert(String value) {
            Matcher m = DURATION.matcher(value.strip().toLowerCase(Locale.ROOT));
            if (!m.matches()) {
                throw new CommandLine.TypeConversionException("'" + value
                        + "' is not a duration: expected seconds, or a number with s, m, h or d (90s, 30m, 12h, 7d)");
            }
            long n = Long.parseLong(m.group(1));
            String unit = m.group(2) == null ? "s" : m.group(2);
            return switch (unit) {
                case "m", "min" -> n * 60;
                case "h" -> n * 3600;
                case "d" -> n * 86_400;
                default -> n;
            };
        }
    }
}

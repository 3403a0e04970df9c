package io.shardq.cli;

import io.shardq.broker.Admin;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.TopicInfo;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.catalog.Names;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code shardq topic ...}: the topic commands. Run alone, it lists them. */
@Command(
        name = "topic",
        description =
                "Create, change and inspect topics: one stored copy of each message, a cursor per" + " subscription.",
        subcommands = {
            TopicCreateCommand.class,
            TopicAlterCommand.class,
            TopicDropCommand.class,
            TopicListCommand.class,
            TopicStatsCommand.class
        })
final class TopicCommand implements Runnable {
    @Mixin
    HelpOption help;

    static final String NAME_HELP =
            "topic name: 1 to 64 characters from [A-Za-z0-9_.-], starting with a letter or digit";

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** The topic called {@code name}: a clear error when the name is malformed, unknown or a queue. */
    static TopicInfo require(Admin admin, String name) {
        DestinationInfo d;
        try {
            d = admin.require(Names.checkDestination(name));
        } catch (ShardQException e) {
            if (e.kind() != ErrorKind.UNKNOWN_DESTINATION) {
                throw e;
            }
            throw new ShardQException(
                    ErrorKind.UNKNOWN_DESTINATION,
                    "topic \"" + name + "\" does not exist (shardq topic list shows the topics)",
                    e);
        }
        if (!d.isTopic()) {
            throw new ShardQException(
                    ErrorKind.INVALID_ARGUMENT,
                    "\"" + name + "\" is a " + d.kind() + ", not a topic (shardq " + d.kind() + " ... administers it)");
        }
        return admin.topics().get(name);
    }

    /** The queue settings, then the expiry policy: "..., dequeue on, backlogs never expire". */
    static String settings(TopicInfo t) {
        return QueueCommand.settings(t.destination()) + ", " + expiry(t);
    }

    /** "backlogs never expire", "backlogs expire beyond 10,000 messages or 1 h 00 min old" */
    static String expiry(TopicInfo t) {
        if (t.maxLag() == null && t.maxAgeSeconds() == null) {
            return "backlogs never expire";
        }
        String lag = t.maxLag() == null ? null : Format.messages(t.maxLag());
        String age = t.maxAgeSeconds() == null ? null : age(t.maxAgeSeconds()) + " old";
        return "backlogs expire beyond " + (lag != null && age != null ? lag + " or " + age : lag != null ? lag : age);
    }

    /** A policy's age as it was likely given: "7 d", "12 h", "30 min", else "1 min 30 s". */
    static String age(long seconds) {
        if (seconds >= 86_400 && seconds % 86_400 == 0) {
            return seconds / 86_400 + " d";
        }
        if (seconds >= 3600 && seconds % 3600 == 0) {
            return seconds / 3600 + " h";
        }
        if (seconds >= 60 && seconds % 60 == 0) {
            return seconds / 60 + " min";
        }
        return Format.duration(seconds * 1000);
    }

    /** "audit", or "audit of client id c1" for a JMS subscription with a client id. */
    static String subscription(String name, String clientId) {
        return clientId == null ? name : name + " of client id " + clientId;
    }
}

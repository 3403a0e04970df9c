package io.shardq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.shardq.broker.Broker;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.shard.BrokerSession;
import io.shardq.broker.testing.TestDatabase;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** Runs CLI commands in-process against a test database, the way a user would type them. */
final class CliRunner {
    record Run(int exit, String out, String err) {
        JsonNode json() {
            try {
                return Json.MAPPER.readTree(out);
            } catch (IOException e) {
                throw new UncheckedIOException("not JSON: " + out, e);
            }
        }
    }

    private final TestDatabase db;
    private final Path passwordFile;

    CliRunner(TestDatabase db, Path tmp) {
        this.db = db;
        try {
            this.passwordFile = Files.writeString(tmp.resolve("password"), db.password() + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The command with the test database's connection options added at the end. */
    Run run(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(connectionArgs());
        return runBare(all.toArray(String[]::new));
    }

    List<String> connectionArgs() {
        return List.of("--jdbc-url", db.jdbcUrl(), "--user", db.user(), "--password-file", passwordFile.toString());
    }

    /**
     * The command exactly as given. Every run of every CLI test also checks the convention that
     * each command's output, on stdout and on stderr, ends with a newline (issue 14).
     */
    static Run runBare(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = ShardqCommand.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
        Run run = new Run(exit, out.toString(), err.toString());
        endsWithNewline("stdout", run.out(), args);
        endsWithNewline("stderr", run.err(), args);
        return run;
    }

    private static void endsWithNewline(String stream, String text, String[] args) {
        if (!text.isEmpty() && !text.endsWith("\n")) {
            throw new AssertionError("shardq " + String.join(" ", args) + ": its " + stream
                    + " does not end with a newline: ..." + text.substring(Math.max(0, text.length() - 80)));
        }
    }

    /** A broker of the test's own, e.g. to send messages or hold leases. */
    Broker broker(String instanceName) {
        return Broker.start(db.brokerConfig()
                .set(io.shardq.broker.BrokerProperty.INSTANCE_NAME, instanceName)
                .build());
    }

    /** Sends the messages in transactions of 500. */
    static void send(Broker broker, String queue, List<BrokerMessage> messages) {
        try (BrokerSession s = broker.openSession(BrokerSession.Mode.TRANSACTED)) {
            int n = 0;
            for (BrokerMessage m : messages) {
                s.send(queue, m);
                if (++n % 500 == 0) {
                    s.commit();
                }
            }
            s.commit();
        }
    }

    long backlog(String queue) {
        return queryLong("select shardq.backlog(?)", queue);
    }

    long queryLong(String sql, Object... args) {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The message ids of a JSON-lines file; an unfinished last line (a killed writer) is left out. */
    static List<String> ids(Path file) throws IOException {
        List<String> ids = new ArrayList<>();
        for (BrokerMessage m : messages(file)) {
            ids.add(m.messageId());
        }
        return ids;
    }

    static List<BrokerMessage> messages(Path file) throws IOException {
        List<BrokerMessage> out = new ArrayList<>();
        String text = Files.readString(file);
        int end = text.lastIndexOf('\n') + 1; // complete lines only
        for (String line : text.substring(0, end).split("\n")) {
            if (!line.isBlank()) {
                out.add(MessageJson.fromJson(Json.MAPPER.readTree(line)));
            }
        }
        return out;
    }

    static void assertOneLineError(Run r) {
        org.assertj.core.api.Assertions.assertThat(r.exit()).as(r.out()).isNotZero();
        org.assertj.core.api.Assertions.assertThat(r.err().strip().lines())
                .as(r.err())
                .hasSize(1);
        org.assertj.core.api.Assertions.assertThat(r.err())
                .startsWith("shardq: ")
                .doesNotContain("\tat ")
                .doesNotContain("Exception");
    }
}

package io.shardq.cli;

import io.shardq.broker.store.EmbeddedServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Runs the shardq command lines it reads on stdin, one per line (arguments separated by a NUL),
 * in this JVM against the embedded PostgreSQL of {@code -Dshardq.embedded.data-dir}, which it holds
 * for the whole run; after each prints the command's stdout and stderr, then {@code [exit N]} when
 * N is not 0, then an end marker. For {@link CliTranscriptTest}.
 */
public final class TranscriptMain {
    static final String END = "\u0000END";

    public static void main(String[] args) throws Exception {
        EmbeddedServer server =
                EmbeddedServer.acquire(Path.of(System.getProperty("shardq.embedded.data-dir")), 0, true);
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                StringWriter out = new StringWriter();
                StringWriter err = new StringWriter();
                int exit = ShardqCommand.execute(
                        line.split("\u0000", -1), new PrintWriter(out, true), new PrintWriter(err, true));
                System.out.print(out);
                // stderr: the error of a failed command; a successful one's is progress, which depends
                // on timing (on a terminal it is redrawn in place and not part of the transcript)
                if (exit != 0) {
                    System.out.print(err);
                }
                if (exit != 0) {
                    System.out.println("[exit " + exit + "]");
                }
                System.out.println(END);
                System.out.flush();
            }
        } finally {
            server.release();
        }
    }
}

package io.shardq.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.message.BrokerMessage;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads the JSON-lines files of {@code queue drain}/{@code queue load}: one message per line
 * (see {@link MessageJson}); blank lines are ignored.
 *
 * <p>An interrupted drain may leave a last line cut short, without its newline. Its batch was
 * not fsynced, hence not committed, hence still in the queue: {@link #check} reports such a
 * line as ignorable instead of failing the whole file.
 */
final class JsonLines {
    /**
     * @param messages valid messages in the file, in order
     * @param ignoredLastLine the file ends with an unterminated line that is not a valid message
     */
    record Check(long messages, boolean ignoredLastLine) {}

    private final BufferedReader in;
    private final Path file;
    private final long messages;
    private long lineNo;
    private long returned;

    /**
     * @param messages how many messages {@link #check} found: reading stops there
     */
    JsonLines(BufferedReader in, Path file, long messages) {
        this.in = in;
        this.file = file;
        this.messages = messages;
    }

    /** The next message, or null at the end. */
    BrokerMessage next() throws IOException {
        if (returned == messages) {
            return null;
        }
        String line;
        while ((line = in.readLine()) != null) {
            lineNo++;
            if (!line.isBlank()) {
                returned++;
                return parse(line, lineNo);
            }
        }
        return null;
    }

    /** Leaves out the first {@code n} messages. */
    void skip(long n) throws IOException {
        for (long i = 0; i < n && next() != null; i++) {
            // the message is read and dropped
        }
    }

    /** Reads the whole file once; throws (naming the line) at the first line that is not a message. */
    static Check check(Path file) throws IOException {
        boolean terminated = endsWithNewline(file);
        long messages = 0;
        long lineNo = 0;
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line = r.readLine();
            while (line != null) {
                String following = r.readLine();
                lineNo++;
                if (!line.isBlank()) {
                    try {
                        parse(file, line, lineNo);
                        messages++;
                    } catch (ShardQException e) {
                        if (following == null && !terminated) {
                            return new Check(messages, true);
                        }
                        throw e;
                    }
                }
                line = following;
            }
        } catch (CharacterCodingException e) {
            throw new ShardQException(
                    ErrorKind.INVALID_ARGUMENT, file + " is not UTF-8 text (after line " + lineNo + ")", e);
        }
        return new Check(messages, false);
    }

    private BrokerMessage parse(String line, long n) {
        return parse(file, line, n);
    }

    private static BrokerMessage parse(Path file, String line, long n) {
        try {
            return MessageJson.fromJson(Json.MAPPER.readTree(line));
        } catch (JsonProcessingException e) {
            throw new ShardQException(
                    ErrorKind.INVALID_ARGUMENT, file + " line " + n + ": not valid JSON: " + e.getOriginalMessage());
        } catch (IllegalArgumentException e) {
            throw new ShardQException(ErrorKind.INVALID_ARGUMENT, file + " line " + n + ": " + e.getMessage());
        }
    }

    private static boolean endsWithNewline(Path file) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            if (f.length() == 0) {
                return true;
            }
            f.seek(f.length() - 1);
            return f.read() == '\n';
        }
    }
}

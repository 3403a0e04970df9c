package io.shardq.cli;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.message.BrokerMessage;
import java.io.FileDescriptor;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.SyncFailedException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * Where {@code queue drain} writes: a JSON-lines file, forced to disk after every batch (before
 * the batch is committed), or stdout, flushed after every batch (and fsynced when it is a file).
 */
final class DrainOutput implements AutoCloseable {
    private final FileChannel file;
    private final PrintWriter stdout;
    private final String where;
    /** Size of the file before the last batch was written; -1 when there is none to take back. */
    private long beforeLastBatch = -1;

    private DrainOutput(FileChannel file, PrintWriter stdout, String where) {
        this.file = file;
        this.stdout = stdout;
        this.where = where;
    }

    /** A new file, or the end of an existing one with {@code append}. */
    static DrainOutput file(Path path, boolean append) throws IOException {
        boolean existed = Files.exists(path);
        FileChannel ch;
        try {
            ch = append
                    ? FileChannel.open(
                            path, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND)
                    : FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        } catch (FileAlreadyExistsException e) {
            throw new ShardQException(
                    ErrorKind.INVALID_ARGUMENT,
                    path + " exists already: give a new file, or add --append to write at its end");
        }
        if (!existed) {
            syncDirectory(path.toAbsolutePath().getParent());
        }
        return new DrainOutput(ch, null, path.toString());
    }

    static DrainOutput stdout(PrintWriter out) {
        return new DrainOutput(null, out, "stdout");
    }

    String where() {
        return where;
    }

    /** Writes one line per message and returns when they are on disk (or handed to stdout). */
    void write(List<BrokerMessage> batch) throws IOException {
        StringBuilder b = new StringBuilder(batch.size() * 256);
        for (BrokerMessage m : batch) {
            b.append(Json.line(MessageJson.toJson(m))).append('\n');
        }
        if (file != null) {
            beforeLastBatch = file.size();
            ByteBuffer buf = StandardCharsets.UTF_8.encode(b.toString());
            while (buf.hasRemaining()) {
                file.write(buf);
            }
            file.force(true);
            return;
        }
        stdout.print(b);
        if (stdout.checkError()) { // flushes; PrintWriter hides the IOException itself
            throw new IOException("cannot write to stdout (closed pipe?); the current batch stays in the queue");
        }
        if (ShardqCommand.processStdout) {
            try {
                FileDescriptor.out.sync();
            } catch (SyncFailedException pipeOrTerminal) {
                // nothing to force: the reader has the bytes already
            }
        }
    }

    /**
     * Takes the last batch back out of a file (its transaction rolled back, so its messages are in
     * the queue again): truncates to the size before it and forces that to disk. False for stdout,
     * whose reader has the lines already.
     */
    boolean retractLastBatch() throws IOException {
        if (file == null || beforeLastBatch < 0) {
            return false;
        }
        file.truncate(beforeLastBatch);
        file.force(true);
        beforeLastBatch = -1;
        return true;
    }

    /** A new file's name is durable only once its directory is synced too. */
    private static void syncDirectory(Path dir) {
        if (dir == null) {
            return;
        }
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException notSupportedHere) {
            // some platforms cannot open or sync a directory; the file's own fsync still holds its data
        }
    }

    @Override
    public void close() throws IOException {
        if (file != null) {
            file.close();
        } else {
            stdout.flush();
        }
    }
}

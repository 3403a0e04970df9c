package io.shardq.broker.store;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.Query;
import io.shardq.broker.internal.SqlErrors;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.message.StreamedBody;
import java.io.IOException;
import java.io.InputStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;

/**
 * Streamed bodies (V012): chunks of {@link #CHUNK_BYTES} in {@code shardq.large_body_chunk}, tied
 * to their message by a {@code shardq.large_body} row.
 *
 * <p>The protocol, all in the sending transaction: {@link #write} the chunks first (no shard row
 * lock is held yet: the gigabyte is written before the reservation), then, once the message has its
 * sequence number, {@link #bind} inserts the {@code large_body} row. The chunks' foreign key to it
 * is deferred to COMMIT, so a body whose message was not stored cannot commit: a rollback or a dead
 * JVM leaves nothing and no orphan sweep exists. Retirement, purge and drop delete the {@code
 * large_body} rows; the chunks follow by cascade.
 *
 * <p>Memory: writing holds one chunk of the application's stream, reading one chunk ({@link
 * #open}), whatever the body's size.
 */
public final class LargeBodies {
    /**
     * Bytes per chunk row: 1 MiB keeps the rows of a gigabyte at 1,024 (one statement each) while
     * a reader or writer holds about one chunk of heap (PostgreSQL stores the value out of line in
     * 2 KB TOAST pieces either way).
     */
    public static final int CHUNK_BYTES = 1 << 20;

    private LargeBodies() {}

    /**
     * Writes {@code in} to its end as the chunks of a new body, on {@code c} (in its transaction),
     * and closes it.
     *
     * @throws IOException when the application's stream fails
     */
    public static StreamedBody write(Connection c, InputStream in) throws SQLException, IOException {
        long id;
        try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.LARGE_BODY_NEXT_ID));
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            id = rs.getLong(1);
        }
        long size = 0;
        byte[] chunk = new byte[CHUNK_BYTES];
        try (InputStream stream = in;
                PreparedStatement ps = c.prepareStatement(Queries.get(Query.LARGE_BODY_CHUNK_INSERT))) {
            for (int no = 0; ; no++) {
                int n = stream.readNBytes(chunk, 0, CHUNK_BYTES);
                if (n == 0 && no > 0) {
                    break;
                }
                ps.setLong(1, id);
                ps.setInt(2, no);
                ps.setBytes(3, n == CHUNK_BYTES ? chunk : Arrays.copyOf(chunk, n));
                ps.executeUpdate();
                size += n;
                if (n < CHUNK_BYTES) {
                    break;
                }
            }
        }
        return new StreamedBody(id, size);
    }

    /**
     * After the batch {@code sent} was written to a shard: a {@code large_body} row for each stored
     * message with a streamed body ({@code stored}, numbered from {@code firstSeq}), and the chunks
     * of a sent one that was not stored (a topic message no subscription wanted) deleted. Does
     * nothing for a batch without streamed bodies.
     */
    public static void bind(
            Connection c,
            int destination,
            int shard,
            long firstSeq,
            List<BrokerMessage> sent,
            List<BrokerMessage> stored)
            throws SQLException {
        if (sent.stream().noneMatch(m -> m.streamedBody() != null)) {
            return;
        }
        Set<Long> bound = new HashSet<>();
        try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.LARGE_BODY_INSERT))) {
            for (int i = 0; i < stored.size(); i++) {
                StreamedBody b = stored.get(i).streamedBody();
                if (b != null) {
                    ps.setLong(1, b.id());
                    ps.setInt(2, destination);
                    ps.setInt(3, shard);
                    ps.setLong(4, firstSeq + i);
                    ps.setLong(5, b.size());
                    ps.addBatch();
                    bound.add(b.id());
                }
            }
            if (!bound.isEmpty()) {
                ps.executeBatch();
            }
        }
        try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.LARGE_BODY_CHUNK_DELETE))) {
            for (BrokerMessage m : sent) {
                StreamedBody b = m.streamedBody();
                if (b != null && !bound.contains(b.id())) {
                    ps.setLong(1, b.id());
                    ps.executeUpdate();
                }
            }
        }
    }

    /**
     * {@code messages} with each streamed body replaced by a copy ({@link #copy}); the list itself
     * when none has one. The list given is not changed (a failed commit may be retried with it).
     */
    public static List<BrokerMessage> withCopies(Connection c, List<BrokerMessage> messages) throws SQLException {
        if (messages.stream().noneMatch(m -> m.streamedBody() != null)) {
            return messages;
        }
        List<BrokerMessage> copies = new java.util.ArrayList<>(messages.size());
        for (BrokerMessage m : messages) {
            copies.add(m.streamedBody() == null ? m : m.withStreamedBody(copy(c, m.streamedBody())));
        }
        return copies;
    }

    /** A copy of {@code body}'s chunks as a new body, made by the server on {@code c} (in its transaction). */
    public static StreamedBody copy(Connection c, StreamedBody body) throws SQLException {
        long id;
        try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.LARGE_BODY_NEXT_ID));
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            id = rs.getLong(1);
        }
        try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.LARGE_BODY_CHUNK_COPY))) {
            ps.setLong(1, id);
            ps.setLong(2, body.id());
            ps.executeUpdate();
        }
        return new StreamedBody(id, body.size());
    }

    /** Deletes the streamed bodies of the messages {@code first..last} of a shard (slice retirement). */
    public static int deleteSlice(Connection c, int destination, int shard, long first, long last) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(Queries.get(Query.LARGE_BODY_DELETE_SLICE))) {
            ps.setInt(1, destination);
            ps.setInt(2, shard);
            ps.setLong(3, first);
            ps.setLong(4, last);
            return ps.executeUpdate();
        }
    }

    /**
     * Reads {@code body} one chunk at a time, each with one statement on a connection of {@code
     * pool} held only for it. A chunk that is gone (the message was consumed and its slice retired,
     * or purged) fails the read with an {@link IOException} saying so; {@code what} names the message.
     */
    public static InputStream open(DataSource pool, StreamedBody body, String what) {
        return new ChunkStream(pool, body, what);
    }

    private static final class ChunkStream extends InputStream {
        private final DataSource pool;
        private final StreamedBody body;
        private final String what;
        private byte[] chunk = new byte[0];
        private int pos;
        private int nextChunk;
        private long read;
        private boolean closed;

        ChunkStream(DataSource pool, StreamedBody body, String what) {
            this.pool = pool;
            this.body = body;
            this.what = what;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            java.util.Objects.checkFromIndexSize(off, len, b.length);
            if (closed) {
                throw new IOException("the body stream of " + what + " is closed");
            }
            if (len == 0) {
                return 0;
            }
            if (pos == chunk.length && !fill()) {
                return -1;
            }
            int n = Math.min(len, chunk.length - pos);
            System.arraycopy(chunk, pos, b, off, n);
            pos += n;
            read += n;
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = 0;
            byte[] sink = new byte[8192];
            while (skipped < n) {
                int r = read(sink, 0, (int) Math.min(sink.length, n - skipped));
                if (r < 0) {
                    break;
                }
                skipped += r;
            }
            return skipped;
        }

        @Override
        public int available() {
            return chunk.length - pos;
        }

        /** The next chunk; false at the end of the body. */
        private boolean fill() throws IOException {
            if (read >= body.size()) {
                return false;
            }
            try (Connection c = pool.getConnection();
                    PreparedStatement ps = c.prepareStatement(Queries.get(Query.LARGE_BODY_CHUNK_SELECT))) {
                ps.setLong(1, body.id());
                ps.setInt(2, nextChunk);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        throw new IOException("the streamed body of " + what + " (" + body.size() + " bytes, body "
                                + body.id() + ") is no longer stored after " + read + " bytes: its message was"
                                + " consumed and its slice retired, or purged; read a streamed body before the"
                                + " message is acknowledged or its transaction committed");
                    }
                    chunk = rs.getBytes(1);
                }
            } catch (SQLException e) {
                ShardQException se = SqlErrors.translate(e, "reading the streamed body of " + what);
                throw new IOException(se.getMessage(), se);
            }
            pos = 0;
            nextChunk++;
            if (chunk.length == 0) {
                return false;
            }
            return true;
        }

        @Override
        public void close() {
            closed = true;
            chunk = new byte[0];
        }
    }

    /** The refusal for a streamed send the engine cannot take. */
    public static ShardQException refused(String why) {
        return new ShardQException(ErrorKind.INVALID_ARGUMENT, why);
    }
}

package io.shardq.broker.shard;

import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.internal.Queries;
import io.shardq.broker.internal.SqlErrors;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.selector.Selector;
import io.shardq.broker.store.HeaderCodec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The engine's side of one JMS session: what it sends and receives, and the one database
 * transaction that makes it durable. Not thread-safe (a JMS session is single-threaded).
 *
 * <p>Sends are buffered per (destination, shard) and written at commit as one multi-row INSERT
 * per slice, after reserving their sequence numbers with {@code shard_reserve}, which keeps the
 * shard row locked until the transaction ends (see {@code docs/architecture.md}, visibility
 * rule). Receives claim a shard and move its cursor forward in the same transaction. After
 * the commit the sent messages go into the instance's cache and wake local consumers.
 */
public final class BrokerSession implements AutoCloseable {
    /** How consumption is acknowledged, as in JMS. */
    public enum Mode {
        TRANSACTED,
        AUTO_ACKNOWLEDGE,
        CLIENT_ACKNOWLEDGE,
        DUPS_OK_ACKNOWLEDGE
    }

    public static final String DEAD_LETTER_REASON = "JMS_ShardQ_DeadLetterReason";
    public static final String ORIGINAL_DESTINATION = "JMS_ShardQ_OriginalDestination";

    private final Engine engine;
    private final Mode mode;
    private final Connection external;
    private Connection txConnection;
    private final TreeMap<Long, Batch> pending = new TreeMap<>();
    private final List<Batch> written = new ArrayList<>();
    private final List<NpMessage> pendingNp = new ArrayList<>();
    private final Map<DestinationRuntime, Integer> pinned = new HashMap<>();
    private final List<Claim> claims = new ArrayList<>();
    private final List<NpMessage> deliveredNp = new ArrayList<>();
    /** Slices this transaction looked up or assigned: published to the SliceMap after commit. */
    private final List<TentativeSlice> tentativeSlices = new ArrayList<>();

    private boolean closed;

    private record TentativeSlice(DestinationRuntime rt, int shard, SliceMap.Slice slice) {}

    private static final class Batch {
        final DestinationRuntime rt;
        final int shard;
        final boolean deadLetters;
        final List<BrokerMessage> messages = new ArrayList<>();
        long firstSeq;

        Batch(DestinationRuntime rt, int shard, boolean deadLetters) {
            this.rt = rt;
            this.shard = shard;
            this.deadLetters = deadLetters;
        }
    }

    private record NpMessage(DestinationRuntime rt, BrokerMessage message) {}

    private static final class Claim {
        final DestinationRuntime rt;
        final ShardState shard;
        final long startPosition;
        final List<Long> delivered = new ArrayList<>();
        /** Consumed in this transaction: delivered, dead-lettered or expired. */
        final List<Long> taken = new ArrayList<>();
        /** A selector passed over a message: what was taken may not be contiguous. */
        boolean gap;

        boolean attemptsToClear;
        /** Computed at commit: new cursor position, and sequence numbers consumed beyond it. */
        long newPosition;

        List<Long> outOfOrder = List.of();
        boolean logToClear;

        Claim(DestinationRuntime rt, ShardState shard, long startPosition) {
            this.rt = rt;
            this.shard = shard;
            this.startPosition = startPosition;
        }
    }

    public BrokerSession(Engine engine, Mode mode, Connection external) {
        this.engine = engine;
        this.mode = external != null ? Mode.TRANSACTED : mode;
        this.external = external;
    }

    public Mode mode() {
        return mode;
    }

    /** True while the session has sends or receives that are not committed yet. */
    public boolean hasUncommittedWork() {
        return !pending.isEmpty()
                || !written.isEmpty()
                || !pendingNp.isEmpty()
                || !claims.isEmpty()
                || !deliveredNp.isEmpty();
    }

    // ---------------------------------------------------------------- send

    /** Sends (transacted: buffers until commit) one message to a destination. */
    public void send(String destination, BrokerMessage message) {
        checkOpen();
        DestinationRuntime rt = engine.runtime(destination, true);
        DestinationInfo d = rt.info();
        if (!d.enqueueEnabled()) {
            throw new ShardQException(ErrorKind.ILLEGAL_STATE, "enqueue is stopped on " + d.kind() + " " + d.name());
        }
        buffer(rt, message, false);
        if (mode != Mode.TRANSACTED) {
            commitWork(true, false);
        }
    }

    /** Dead letters are written only together with the consumption that produced them. */
    private void buffer(DestinationRuntime rt, BrokerMessage message, boolean deadLetter) {
        if (!message.persistent()) {
            pendingNp.add(new NpMessage(rt, message));
            return;
        }
        int shard = pinned.computeIfAbsent(rt, DestinationRuntime::assignProducerShard);
        long key = ((long) rt.info().id() << 16) | shard | (deadLetter ? 1L << 62 : 0);
        Batch b = pending.computeIfAbsent(key, k -> new Batch(rt, shard, deadLetter));
        b.messages.add(message);
        if (mode == Mode.TRANSACTED
                && !deadLetter
                && b.messages.size() >= engine.settings().enqueueMaxBatch()) {
            try {
                writeBatch(transactionConnection(), b);
            } catch (SQLException e) {
                throw SqlErrors.translate(e, "writing messages to " + rt.info().name());
            }
            pending.remove(key);
            written.add(b);
        }
    }

    private void writeBatch(Connection c, Batch b) throws SQLException {
        if (!writeBatchFast(c, b)) {
            writeBatchReserving(c, b);
        }
    }

    /**
     * One statement when this instance knows the shard's head (the usual case for a pinned
     * producer): reserve from the expected next_seq and insert, in the current slice. Returns
     * false, having changed nothing, when the guess was wrong or the batch crosses a slice.
     */
    private boolean writeBatchFast(Connection c, Batch b) throws SQLException {
        DestinationInfo d = b.rt.info();
        int n = b.messages.size();
        long expected;
        b.rt.lock.lock();
        try {
            expected = b.rt.shards[b.shard].knownHead + 1;
        } finally {
            b.rt.lock.unlock();
        }
        SliceMap.Slice slice = b.rt.slices.find(b.shard, expected);
        if (slice == null || expected + n - 1 > slice.last() || n > 1000) {
            return false;
        }
        long now = System.currentTimeMillis();
        long notified;
        try (PreparedStatement ps = c.prepareStatement(Queries.insertReserving(d.id(), b.shard, slice.slot(), n))) {
            int i = 1;
            ps.setInt(i++, n);
            ps.setInt(i++, d.id());
            ps.setInt(i++, b.shard);
            ps.setLong(i++, expected);
            ps.setInt(i++, b.shard);
            ps.setInt(i++, slice.slot());
            for (int k = 0; k < n; k++) {
                BrokerMessage m = b.messages.get(k);
                ps.setLong(i++, expected + k);
                ps.setLong(i++, now);
                ps.setLong(i++, m.deliverAt());
                ps.setLong(i++, m.expiration());
                ps.setShort(i++, (short) m.priority());
                ps.setBytes(i++, HeaderCodec.encode(m));
                ps.setBytes(i++, m.body());
            }
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return false;
                }
                notified = rs.getLong(1);
            }
        }
        b.firstSeq = expected;
        notifyIfWaited(c, d, b.shard, notified);
        return true;
    }

    private void notifyIfWaited(Connection c, DestinationInfo d, int shard, long waiter) throws SQLException {
        if (waiter != 0 && waiter != engine.instanceId()) {
            try (PreparedStatement ps = c.prepareStatement("select pg_notify('shardq_wake', ?)")) {
                ps.setString(1, d.id() + "/" + shard);
                ps.execute();
            }
            engine.stats().notifiesSent.increment();
        }
    }

    private void writeBatchReserving(Connection c, Batch b) throws SQLException {
        DestinationInfo d = b.rt.info();
        int n = b.messages.size();
        long first;
        long waiter;
        try (PreparedStatement ps = c.prepareStatement(Queries.get("shard_reserve"))) {
            ps.setInt(1, n);
            ps.setInt(2, d.id());
            ps.setInt(3, b.shard);
            ps.setInt(4, n);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new ShardQException(
                            ErrorKind.UNKNOWN_DESTINATION, d.kind() + " " + d.name() + " no longer exists");
                }
                first = rs.getLong(1);
                waiter = rs.getLong(2);
            }
        }
        b.firstSeq = first;
        long now = System.currentTimeMillis();
        long seq = first;
        int i = 0;
        while (i < n) {
            SliceMap.Slice slice = sliceForEnqueue(c, b, seq, d.sliceSize());
            int count = (int) Math.min(n - i, slice.last() - seq + 1);
            try (PreparedStatement ps =
                    c.prepareStatement(Queries.withLeaf("message_insert", d.id(), b.shard, slice.slot()))) {
                for (int k = 0; k < count; k++) {
                    BrokerMessage m = b.messages.get(i + k);
                    ps.setInt(1, b.shard);
                    ps.setInt(2, slice.slot());
                    ps.setLong(3, seq + k);
                    ps.setLong(4, now);
                    ps.setLong(5, m.deliverAt());
                    ps.setLong(6, m.expiration());
                    ps.setShort(7, (short) m.priority());
                    ps.setNull(8, Types.BINARY);
                    ps.setBytes(9, HeaderCodec.encode(m));
                    ps.setBytes(10, m.body());
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            seq += count;
            i += count;
        }
        notifyIfWaited(c, d, b.shard, waiter);
    }

    private SliceMap.Slice sliceForEnqueue(Connection c, Batch b, long seq, int sliceSize) throws SQLException {
        SliceMap.Slice known = b.rt.slices.find(b.shard, seq);
        if (known != null) {
            return known;
        }
        for (TentativeSlice t : tentativeSlices) {
            if (t.rt == b.rt && t.shard == b.shard && t.slice.first() <= seq && t.slice.last() >= seq) {
                return t.slice;
            }
        }
        SliceMap.Slice s = b.rt.slices.forEnqueue(c, b.shard, seq, sliceSize);
        tentativeSlices.add(new TentativeSlice(b.rt, b.shard, s));
        return s;
    }

    // ---------------------------------------------------------------- receive

    /**
     * Receives the next message of a queue.
     *
     * @param timeoutMillis 0 waits for ever, a negative value does not wait
     * @param deferAck in AUTO/DUPS_OK mode, leave the consumption to {@link #acknowledge()}
     *     (message listeners acknowledge after onMessage returns)
     * @return the delivery, or null when none arrived in time
     */
    public Delivery receive(String destination, long timeoutMillis, boolean deferAck) {
        return receive(destination, timeoutMillis, deferAck, null);
    }

    /**
     * Receives the next message of a queue that matches {@code selector} (null: any). Messages
     * that do not match stay in the queue for other consumers.
     */
    public Delivery receive(String destination, long timeoutMillis, boolean deferAck, Selector selector) {
        checkOpen();
        DestinationRuntime rt = engine.runtime(destination, true);
        long now = System.nanoTime();
        long deadline =
                timeoutMillis == 0 ? Long.MAX_VALUE : timeoutMillis < 0 ? now : now + timeoutMillis * 1_000_000L;
        try {
            while (true) {
                Delivery d = next(rt, destination, selector);
                if (d != null) {
                    if ((mode == Mode.AUTO_ACKNOWLEDGE || mode == Mode.DUPS_OK_ACKNOWLEDGE) && !deferAck) {
                        commitWork(true, true);
                    }
                    return d;
                }
                releaseIdleClaims(rt);
                if (!rt.awaitMessages(deadline, selector != null)) {
                    if ((mode == Mode.AUTO_ACKNOWLEDGE || mode == Mode.DUPS_OK_ACKNOWLEDGE) && hasUncommittedWork()) {
                        // only expired or dead-lettered messages were passed over on the way (a deferred
                        // acknowledgement is always made before the next receive): make that final
                        commitWork(true, true);
                    }
                    return null;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** One delivery attempt without waiting; null when nothing is available right now. */
    private Delivery next(DestinationRuntime rt, String destination, Selector selector) {
        while (true) {
            ShardState s = null;
            long seq = 0;
            long head = 0;
            BrokerMessage np = null;
            Claim claim = null;
            rt.lock.lock();
            try {
                if (!rt.info().dequeueEnabled()) {
                    return null;
                }
                np = rt.nonPersistent.pollFirst();
                if (np == null) {
                    s = rt.pick(this);
                    if (s == null) {
                        return null;
                    }
                    if (s.claimedBy == null) {
                        s.claimedBy = this;
                        s.nextSeq = s.position + 1;
                        claims.add(new Claim(rt, s, s.position));
                    }
                    seq = s.nextSeq++;
                    head = s.knownHead;
                    s.lastClaimNanos = System.nanoTime();
                    claim = claimOf(s);
                    if (s.consumedAhead.contains(seq)) {
                        continue; // taken earlier by a selective consumer
                    }
                }
            } finally {
                rt.lock.unlock();
            }
            if (np != null) {
                if (expired(np)) {
                    continue;
                }
                deliveredNp.add(new NpMessage(rt, np));
                return new Delivery(destination, np, 1, -1, 0);
            }
            BrokerMessage m = fetch(rt, s, seq, head);
            int attempts = s.attempts.getOrDefault(seq, 0);
            if (attempts > 0) {
                claim.attemptsToClear = true;
            }
            if (expired(m)) {
                claim.taken.add(seq);
                continue;
            }
            if (selector != null && !selector.matches(m)) {
                claim.gap = true;
                continue;
            }
            if (attempts >= rt.info().maxAttempts()) {
                deadLetter(rt, m, attempts);
                claim.taken.add(seq);
                continue;
            }
            claim.taken.add(seq);
            claim.delivered.add(seq);
            return new Delivery(destination, m, attempts + 1, s.shardNo, seq);
        }
    }

    private Claim claimOf(ShardState s) {
        for (int i = claims.size() - 1; i >= 0; i--) {
            if (claims.get(i).shard == s) {
                return claims.get(i);
            }
        }
        throw new IllegalStateException("no claim for " + s);
    }

    /** Before waiting: give back shards this session scanned but took nothing from. */
    private void releaseIdleClaims(DestinationRuntime rt) {
        if (claims.isEmpty()) {
            return;
        }
        rt.lock.lock();
        try {
            claims.removeIf(cl -> {
                if (cl.rt == rt && cl.taken.isEmpty()) {
                    cl.shard.claimedBy = null;
                    rt.changed.signalAll();
                    return true;
                }
                return false;
            });
        } finally {
            rt.lock.unlock();
        }
    }

    private static boolean expired(BrokerMessage m) {
        return m.expiration() > 0 && m.expiration() < System.currentTimeMillis();
    }

    private void deadLetter(DestinationRuntime rt, BrokerMessage m, int attempts) {
        DestinationInfo d = rt.info();
        DestinationRuntime dlq = engine.deadLetterRuntime(d.deadLetterQueue());
        BrokerMessage dead = m.withProperty(
                        DEAD_LETTER_REASON,
                        "delivery failed " + attempts + " times; " + d.name() + " allows " + d.maxAttempts()
                                + " attempts")
                .withProperty(ORIGINAL_DESTINATION, d.name());
        buffer(dlq, dead, true);
        engine.stats().deadLettered.increment();
    }

    /** The message {@code seq} of a claimed shard: from the cache, else read ahead in bulk. */
    private BrokerMessage fetch(DestinationRuntime rt, ShardState s, long seq, long head) {
        DestinationInfo d = rt.info();
        BrokerMessage cached = engine.cache().get(d.id(), s.shardNo, seq);
        if (cached != null) {
            return cached;
        }
        try (Connection c = engine.dataSource().getConnection()) {
            SliceMap.Slice slice = rt.slices.findOrReload(c, s.shardNo, seq);
            if (slice == null) {
                throw new ShardQException(
                        ErrorKind.DATABASE,
                        "no slice of " + d.name() + " shard " + s.shardNo + " holds message " + seq);
            }
            long to = Math.max(
                    seq, Math.min(Math.min(head, seq + engine.settings().readAhead() - 1), slice.last()));
            BrokerMessage result = null;
            engine.stats().dequeueSqlReads.increment();
            try (PreparedStatement ps =
                    c.prepareStatement(Queries.withLeaf("message_select_range", d.id(), s.shardNo, slice.slot()))) {
                ps.setLong(1, seq);
                ps.setLong(2, to);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        long rowSeq = rs.getLong(1);
                        BrokerMessage m = HeaderCodec.decode(
                                rs.getBytes(6), rs.getBytes(7), rs.getShort(5), rs.getLong(4), rs.getLong(3));
                        if (rowSeq == seq) {
                            result = m;
                        } else {
                            engine.cache().put(d.id(), s.shardNo, rowSeq, m);
                        }
                    }
                }
            }
            if (result == null) {
                throw new ShardQException(
                        ErrorKind.DATABASE,
                        "message " + seq + " of " + d.name() + " shard " + s.shardNo + " is missing");
            }
            return result;
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "reading messages of " + d.name());
        }
    }

    // ---------------------------------------------------------------- completion

    /** Commits everything: sends and receives (transacted sessions). */
    public void commit() {
        checkOpen();
        commitWork(true, true);
    }

    /** Consumes every message delivered so far (CLIENT_ACKNOWLEDGE, or deferred AUTO acks). */
    public void acknowledge() {
        checkOpen();
        commitWork(true, true);
    }

    /** Discards sends and redelivers receives (transacted sessions). */
    public void rollback() {
        checkOpen();
        rollbackWork();
    }

    /** Redelivers every unacknowledged message (CLIENT_ACKNOWLEDGE and AUTO). */
    public void recover() {
        checkOpen();
        rollbackWork();
    }

    /**
     * The JDBC connection of the current transaction, for the application's own SQL: it commits
     * and rolls back with the session. Do not commit or close it yourself.
     */
    public Connection connection() {
        checkOpen();
        if (mode != Mode.TRANSACTED) {
            throw new ShardQException(ErrorKind.ILLEGAL_STATE, "only a transacted session shares its JDBC connection");
        }
        try {
            return transactionConnection();
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "opening the session's connection");
        }
    }

    private Connection transactionConnection() throws SQLException {
        if (external != null) {
            return external;
        }
        if (txConnection == null) {
            Connection c = engine.dataSource().getConnection();
            c.setAutoCommit(false);
            txConnection = c;
        }
        return txConnection;
    }

    private void commitWork(boolean sends, boolean consumption) {
        List<Batch> toWrite = new ArrayList<>();
        if (sends) {
            for (Batch b : pending.values()) {
                if (consumption || !b.deadLetters) {
                    toWrite.add(b);
                }
            }
        }
        List<Batch> batches = new ArrayList<>(written);
        batches.addAll(toWrite);
        boolean consume = consumption && !claims.isEmpty();
        // cursor rows are always locked in (destination, shard) order: no deadlock between commits
        claims.sort(java.util.Comparator.comparingInt((Claim cl) -> cl.rt.info().id())
                .thenComparingInt(cl -> cl.shard.shardNo));
        long me = engine.instanceId();
        long[] newPositions = new long[claims.size()];
        int advances = 0;
        boolean attemptsToClear = false;
        if (consume) {
            for (int i = 0; i < claims.size(); i++) {
                Claim cl = claims.get(i);
                cl.rt.lock.lock();
                try {
                    newPositions[i] = newPosition(cl);
                } finally {
                    cl.rt.lock.unlock();
                }
                if (newPositions[i] > cl.startPosition || !cl.outOfOrder.isEmpty()) {
                    advances++;
                    attemptsToClear |= cl.attemptsToClear || cl.logToClear || !cl.outOfOrder.isEmpty();
                }
            }
        }
        boolean dbWork = !batches.isEmpty() || advances > 0 || txConnection != null;
        // One statement needs no transaction block: run it in autocommit, one round trip.
        boolean single = txConnection == null
                && external == null
                && written.isEmpty()
                && ((toWrite.size() == 1 && advances == 0) || (toWrite.isEmpty() && advances == 1 && !attemptsToClear));
        if (dbWork) {
            Connection c = null;
            boolean borrowed = false;
            try {
                if (txConnection != null || external != null) {
                    c = transactionConnection();
                } else {
                    c = engine.dataSource().getConnection();
                    borrowed = true;
                    if (!single) {
                        c.setAutoCommit(false);
                    }
                }
                if (single && toWrite.size() == 1) {
                    if (!writeBatchFast(c, toWrite.get(0))) {
                        c.setAutoCommit(false);
                        writeBatchReserving(c, toWrite.get(0));
                        c.commit();
                    }
                } else {
                    for (Batch b : toWrite) {
                        writeBatch(c, b);
                    }
                    for (int i = 0; i < claims.size() && consume; i++) {
                        Claim cl = claims.get(i);
                        if (newPositions[i] > cl.startPosition || !cl.outOfOrder.isEmpty()) {
                            advanceCursor(c, cl, newPositions[i], me);
                        }
                    }
                    if (external == null && !c.getAutoCommit()) {
                        c.commit();
                    }
                }
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly(c);
                releaseConnection(c, borrowed);
                afterFailedCommit();
                if (e instanceof ShardQException se) {
                    throw se;
                }
                throw e instanceof SQLException se
                        ? rolledBack(SqlErrors.translate(se, "commit"))
                        : (RuntimeException) e;
            }
            releaseConnection(c, borrowed);
        }
        pending.values().removeAll(toWrite);
        afterCommit(batches, sends, consume, newPositions);
    }

    /**
     * The cursor moves over the contiguous run of consumed messages: taken now, or taken earlier
     * out of order. What was taken beyond that run is logged. Called under the runtime's lock.
     */
    private static long newPosition(Claim cl) {
        ShardState s = cl.shard;
        long p;
        if (!cl.gap) {
            p = s.nextSeq - 1; // everything scanned was taken (or consumed before)
            cl.outOfOrder = List.of();
        } else {
            java.util.Set<Long> taken = new java.util.HashSet<>(cl.taken);
            p = cl.startPosition;
            while (taken.contains(p + 1) || s.consumedAhead.contains(p + 1)) {
                p++;
            }
            List<Long> ahead = new ArrayList<>();
            for (long seq : cl.taken) {
                if (seq > p) {
                    ahead.add(seq);
                }
            }
            cl.outOfOrder = ahead;
        }
        while (s.consumedAhead.contains(p + 1)) {
            p++;
        }
        cl.logToClear = !s.consumedAhead.isEmpty() && s.consumedAhead.first() <= p;
        return p;
    }

    private void advanceCursor(Connection c, Claim cl, long newPosition, long me) throws SQLException {
        DestinationInfo d = cl.rt.info();
        if (!cl.outOfOrder.isEmpty()) {
            try (PreparedStatement ps = c.prepareStatement(Queries.get("dequeue_log_insert"))) {
                ps.setLong(1, d.queueSubscription());
                ps.setInt(2, cl.shard.shardNo);
                ps.setArray(3, c.createArrayOf("bigint", cl.outOfOrder.toArray()));
                ps.executeUpdate();
            }
        }
        if (cl.logToClear) {
            try (PreparedStatement ps = c.prepareStatement(Queries.get("dequeue_log_delete_upto"))) {
                ps.setLong(1, d.queueSubscription());
                ps.setInt(2, cl.shard.shardNo);
                ps.setLong(3, newPosition);
                ps.executeUpdate();
            }
        }
        if (newPosition == cl.startPosition) {
            return; // only out-of-order consumption: the cursor stays
        }
        try (PreparedStatement ps = c.prepareStatement(Queries.get("cursor_advance"))) {
            ps.setLong(1, newPosition);
            ps.setLong(2, d.queueSubscription());
            ps.setInt(3, cl.shard.shardNo);
            ps.setLong(4, cl.startPosition);
            ps.setLong(5, me);
            if (ps.executeUpdate() != 1) {
                throw new ShardQException(
                        ErrorKind.ROLLED_BACK,
                        "transaction rolled back: the dequeue lease of " + d.name() + " shard " + cl.shard.shardNo
                                + " passed to another instance; its messages will be redelivered");
            }
        }
        if (cl.attemptsToClear) {
            try (PreparedStatement ps = c.prepareStatement(Queries.get("delivery_attempt_delete_upto"))) {
                ps.setLong(1, d.queueSubscription());
                ps.setInt(2, cl.shard.shardNo);
                ps.setLong(3, newPosition);
                ps.executeUpdate();
            }
        }
    }

    private static ShardQException rolledBack(ShardQException e) {
        return e.kind() == ErrorKind.CONNECTION
                ? e
                : new ShardQException(ErrorKind.ROLLED_BACK, "transaction rolled back: " + e.getMessage(), e);
    }

    private void afterCommit(List<Batch> batches, boolean sends, boolean consume, long[] newPositions) {
        for (TentativeSlice t : tentativeSlices) {
            t.rt.slices.put(t.shard, t.slice);
        }
        tentativeSlices.clear();
        for (Batch b : batches) {
            int n = b.messages.size();
            engine.stats().enqueued.add(n);
            if (external != null) {
                continue; // the application may still roll back: consumers find these by polling
            }
            int dest = b.rt.info().id();
            for (int i = 0; i < n; i++) {
                engine.cache().put(dest, b.shard, b.firstSeq + i, b.messages.get(i));
            }
            b.rt.lock.lock();
            try {
                b.rt.advanceHead(b.shard, b.firstSeq + n - 1);
            } finally {
                b.rt.lock.unlock();
            }
        }
        written.clear();
        if (sends) {
            for (NpMessage np : pendingNp) {
                np.rt.lock.lock();
                try {
                    np.rt.nonPersistent.addLast(np.message);
                    np.rt.changed.signalAll();
                } finally {
                    np.rt.lock.unlock();
                }
            }
            pendingNp.clear();
        }
        if (consume) {
            long delivered = 0;
            for (int i = 0; i < claims.size(); i++) {
                Claim cl = claims.get(i);
                int dest = cl.rt.info().id();
                for (long seq : cl.taken) {
                    engine.cache().remove(dest, cl.shard.shardNo, seq);
                    if (cl.attemptsToClear) {
                        cl.shard.attempts.remove(seq);
                    }
                }
                delivered += cl.delivered.size();
                engine.cursorCommitted(cl.rt.info(), cl.shard.shardNo, cl.startPosition, newPositions[i]);
                cl.rt.lock.lock();
                try {
                    if (external == null) {
                        cl.shard.position = Math.max(cl.shard.position, newPositions[i]);
                        cl.shard.consumedAhead.addAll(cl.outOfOrder);
                        cl.shard.consumedAhead.headSet(cl.shard.position, true).clear();
                    } else {
                        cl.shard.leased = false; // the application commits: re-read the cursor on next lease
                    }
                    cl.shard.claimedBy = null;
                    cl.rt.changed.signalAll();
                } finally {
                    cl.rt.lock.unlock();
                }
            }
            delivered += deliveredNp.size();
            engine.stats().dequeued.add(delivered);
            claims.clear();
            deliveredNp.clear();
        }
    }

    private void afterFailedCommit() {
        tentativeSlices.clear();
        pending.clear();
        written.clear();
        pendingNp.clear();
        releaseClaims(true);
    }

    private void rollbackWork() {
        if (txConnection != null) {
            rollbackQuietly(txConnection);
            releaseConnection(txConnection, false);
        }
        tentativeSlices.clear();
        pending.clear();
        written.clear();
        pendingNp.clear();
        releaseClaims(true);
    }

    /** Gives claimed shards back; delivered messages count one more attempt. */
    private void releaseClaims(boolean countAttempts) {
        ShardQException failure = null;
        for (Claim cl : claims) {
            if (countAttempts && !cl.delivered.isEmpty()) {
                try {
                    recordAttempts(cl);
                } catch (ShardQException e) {
                    failure = e;
                }
            }
            cl.rt.lock.lock();
            try {
                cl.shard.claimedBy = null;
                cl.rt.changed.signalAll();
            } finally {
                cl.rt.lock.unlock();
            }
        }
        claims.clear();
        for (int i = deliveredNp.size() - 1; i >= 0; i--) {
            NpMessage np = deliveredNp.get(i);
            np.rt.lock.lock();
            try {
                np.rt.nonPersistent.addFirst(np.message);
                np.rt.changed.signalAll();
            } finally {
                np.rt.lock.unlock();
            }
        }
        deliveredNp.clear();
        if (failure != null) {
            throw failure;
        }
    }

    private void recordAttempts(Claim cl) {
        DestinationInfo d = cl.rt.info();
        try (Connection c = engine.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(Queries.get("delivery_attempt_increment"))) {
            ps.setLong(1, d.queueSubscription());
            ps.setInt(2, cl.shard.shardNo);
            ps.setArray(3, c.createArrayOf("bigint", cl.delivered.toArray()));
            ps.executeUpdate();
            for (long seq : cl.delivered) {
                cl.shard.attempts.merge(seq, 1, Integer::sum);
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "recording delivery attempts on " + d.name());
        }
    }

    private void rollbackQuietly(Connection c) {
        if (c == null || c == external) {
            return;
        }
        try {
            if (c.getAutoCommit()) {
                return;
            }
            c.rollback();
        } catch (SQLException ignored) {
            // the connection is broken; the pool discards it
        }
    }

    private void releaseConnection(Connection c, boolean borrowed) {
        if (c == null || c == external) {
            return;
        }
        if (c == txConnection || borrowed) {
            try {
                c.setAutoCommit(true);
            } catch (SQLException ignored) {
                // broken connection: closing returns it to the pool, which evicts it
            }
            try {
                c.close();
            } catch (SQLException ignored) {
                // nothing left to do
            }
            if (c == txConnection) {
                txConnection = null;
            }
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new ShardQException(ErrorKind.ILLEGAL_STATE, "the session is closed");
        }
    }

    /** Rolls back whatever is uncommitted (JMS: closing a session rolls back its transaction). */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        try {
            if (hasUncommittedWork() || txConnection != null) {
                rollbackWork();
            }
        } finally {
            closed = true;
        }
    }
}

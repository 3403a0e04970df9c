package io.shardq.broker.shard;

import io.shardq.broker.ShardQException;
import io.shardq.broker.message.BrokerMessage;
import io.shardq.broker.selector.Selector;
import io.shardq.broker.selector.SelectorSql;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * What one session holds of one subscription: its {@link Claim}s (per shard: the prefetch, or a
 * selective consumer's scan position, and what the transaction took), and the receive that works
 * them: {@link #receive} picks a shard, takes a range, fetches, filters, expires or dead-letters on
 * the way and returns a delivery without going back to the session, except to acknowledge.
 * The session's consumers of one subscription share its cursor (as they share the transaction),
 * and so does a receive by destination name on the session.
 *
 * <p><b>Invariants.</b> At most one claim per shard ({@link #claimOf}); a claim of an older lease is
 * replaced when the shard is claimed again (its commit would fail on the cursor guard). A sequence
 * number taken from a claim's prefetch or scan is either settled (delivered, passed over, moved
 * aside: recorded in {@code taken}) or handed back to the claim when anything fails before that,
 * so the cursor never stalls before an undelivered message. Before the receive waits, undelivered
 * prefetch goes back to the shards ({@link #giveBackUndelivered}).
 *
 * <p><b>Threading.</b> The session's thread only (a JMS session is single-threaded); the shards and
 * the subscription it takes from are shared and guard themselves.
 */
final class ConsumerCursor {
    /**
     * What a receive asks of the session's transaction: that the session may work now (open, not
     * prepared, XA-associated), whether each receive is acknowledged alone (AUTO and DUPS_OK), the
     * acknowledgement itself (a commit of the consumption), and whether anything is uncommitted.
     */
    record Transaction(
            Runnable checkWork, BooleanSupplier autoAcknowledge, Runnable acknowledge, BooleanSupplier uncommitted) {}

    final Subscription sub;
    private final Engine engine;
    /** The session: who owns a message group's shard or a selective scan. */
    private final Object owner;

    private final Transaction transaction;
    private final IntSupplier prefetch;
    private final NonPersistentWork nonPersistent;
    private final DeadLetters deadLetters;
    private final List<Claim> claims = new ArrayList<>();

    ConsumerCursor(
            Subscription sub,
            Engine engine,
            Object owner,
            Transaction transaction,
            IntSupplier prefetch,
            NonPersistentWork nonPersistent,
            DeadLetters deadLetters) {
        this.sub = sub;
        this.engine = engine;
        this.owner = owner;
        this.transaction = transaction;
        this.prefetch = prefetch;
        this.nonPersistent = nonPersistent;
        this.deadLetters = deadLetters;
    }

    /** The claims, for the commit (which plans, writes and completes them). */
    List<Claim> claims() {
        return claims;
    }

    /** True when something was taken in the current transaction. */
    boolean hasTaken() {
        for (Claim cl : claims) {
            if (!cl.taken.isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Receives the next message (matching {@code selector}, null: any).
     *
     * @param timeoutMillis 0 waits for ever, a negative value does not wait
     * @param deferAck in AUTO/DUPS_OK mode, leave the consumption to the session's acknowledge
     */
    Delivery receive(String destination, long timeoutMillis, boolean deferAck, Selector selector) {
        transaction.checkWork().run();
        long now = System.nanoTime();
        long deadline =
                timeoutMillis == 0 ? Long.MAX_VALUE : timeoutMillis < 0 ? now : now + timeoutMillis * 1_000_000L;
        boolean autoAck = transaction.autoAcknowledge().getAsBoolean();
        try {
            while (true) {
                Delivery d = next(destination, selector);
                if (d != null) {
                    if (autoAck && !deferAck) {
                        transaction.acknowledge().run();
                    }
                    return d;
                }
                giveBackUndelivered();
                sub.catchUp();
                if (!sub.awaitMessages(deadline, selector != null, groupSession())) {
                    if (autoAck && transaction.uncommitted().getAsBoolean()) {
                        // only expired or dead-lettered messages were passed over on the way (a deferred
                        // acknowledgement is always made before the next receive): make that final
                        transaction.acknowledge().run();
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
    private Delivery next(String destination, Selector selector) {
        DestinationRuntime rt = sub.destination;
        while (true) {
            if (!rt.info().dequeueEnabled()) {
                return null;
            }
            NonPersistentWork.Taken np = nonPersistent.take(sub, selector, deadLetters);
            if (np != null) {
                if (np.delivered()) {
                    if (np.entry().attempts > 0) {
                        rt.redelivered.increment();
                    }
                    return new Delivery(destination, np.entry().message, np.entry().attempts + 1, -1, 0);
                }
                continue; // expired or dead-lettered on the way
            }
            Claim claim = selector == null ? nextRange() : nextExclusive();
            if (claim == null) {
                return null;
            }
            long seq;
            SelectorSql.Translation prefilter = null;
            if (claim.exclusive) {
                seq = claim.shard.nextUnconsumed(claim.scanNext);
                if (seq < 0) {
                    claim.scanNext = claim.shard.knownHead() + 1;
                    continue;
                }
                prefilter = SelectorSql.of(engine.dataSource(), selector);
                if (prefilter != null) {
                    // PostgreSQL says which rows of the window the selector may select: only those are read
                    // (a window is the selector's: the session's consumers with other selectors share the claim)
                    if (claim.window == null) {
                        claim.window =
                                new SelectorSql.Window(engine.dataSource(), rt.info(), claim.shard.shardNo, seq - 1);
                    }
                    if (!claim.window.covers(seq, prefilter)) {
                        engine.stats().dequeueSqlReads.increment();
                        claim.window.read(
                                seq,
                                Math.max(seq, Math.min(claim.shard.knownHead(), seq + SelectorSql.WINDOW - 1)),
                                prefilter);
                    }
                    Long next = claim.window.next(seq - 1);
                    if (next == null) {
                        claim.scanNext = claim.window.last() + 1; // nothing here for this selector
                        continue;
                    }
                    if (next != seq) {
                        claim.scanNext = next;
                        continue;
                    }
                }
                claim.scanNext = seq + 1;
            } else {
                seq = claim.prefetched.pollFirst();
            }
            ShardState s = claim.shard;
            // until seq is consumed here or passed over on purpose, a failure (a read while
            // PostgreSQL is gone, the dead-letter queue unreachable) must hand it back to the
            // claim, or it is neither delivered nor given back and the cursor stalls before it
            boolean settled = false;
            try {
                // a pre-filtered scan reads exactly the candidates, not the rows after them
                BrokerMessage m =
                        MessageReader.read(engine, rt, s.shardNo, seq, prefilter != null ? seq : s.knownHead());
                if (!sub.wants(m)) {
                    claim.taken.add(seq); // a topic message without this subscription's bit: passed over
                    settled = true;
                    continue;
                }
                int attempts = s.attempts.getOrDefault(seq, 0);
                if (attempts > 0) {
                    claim.attemptsToClear = true;
                }
                if (DeadLetters.expired(m)) {
                    deadLetters.expire(rt, m, true);
                    claim.taken.add(seq);
                    settled = true;
                    continue;
                }
                if (selector != null && !selector.matches(m)) {
                    settled = true;
                    continue; // left for other consumers: the exclusive scan passes over it
                }
                if (attempts >= rt.info().maxAttempts()) {
                    deadLetters.deadLetter(rt, m, attempts, true);
                    claim.taken.add(seq);
                    settled = true;
                    continue;
                }
                // a large body is read now, while this claim keeps the cursor before the message:
                // after an AUTO_ACKNOWLEDGE commit its slot may already be truncated
                m = m.withBodyLoaded();
                claim.taken.add(seq);
                claim.delivered.add(seq);
                settled = true;
                if (attempts > 0) {
                    rt.redelivered.increment();
                }
                return new Delivery(destination, m, attempts + 1, s.shardNo, seq);
            } finally {
                if (!settled) {
                    if (claim.exclusive) {
                        claim.scanNext = Math.min(claim.scanNext, seq);
                    } else {
                        claim.prefetched.addFirst(seq);
                    }
                }
            }
        }
    }

    /** A claim with a prefetched message to deliver: this cursor's own first, else a new range. */
    private Claim nextRange() {
        for (Claim cl : claims) {
            if (!cl.exclusive && !cl.prefetched.isEmpty()) {
                if (cl.current() && cl.shard.leaseLive()) {
                    return cl;
                }
                if (cl.current()) {
                    continue; // the lease clock ran out (a long pause): deliver nothing until it is renewed
                }
                cl.prefetched.clear(); // the lease moved: these are another instance's now
            }
        }
        Object group = groupSession();
        // a group's messages keep their send order whatever their priorities
        int priorityWindow = group == null ? engine.settings().priorityWindow() : 0;
        sub.learnPriorities(priorityWindow);
        for (int attempt = 0; attempt < 4; attempt++) {
            ShardState s = sub.pickForRange(group);
            if (s == null) {
                return null;
            }
            Claim cl = currentClaimOf(s);
            boolean first = cl == null;
            List<Long> got = s.take(prefetch.getAsInt(), first, group, priorityWindow);
            if (got.isEmpty()) {
                continue; // raced with another session; look again
            }
            s.recordWaits(got, engine.stats().steps);
            sub.rangeTaken();
            if (first) {
                dropStaleClaimsOf(s);
                cl = new Claim(sub, s, false);
                claims.add(cl);
            }
            cl.prefetched.addAll(got);
            return cl;
        }
        return null;
    }

    /** A selective session's claim: a shard it scans alone. */
    private Claim nextExclusive() {
        for (Claim cl : claims) {
            if (cl.exclusive && cl.current() && cl.shard.leaseLive() && cl.shard.nextUnconsumed(cl.scanNext) >= 0) {
                return cl;
            }
        }
        ShardState[] all = sub.shards();
        for (ShardState s : all) {
            if (!s.mayBeScanned() || claimOf(s) != null) {
                continue;
            }
            if (s.takeExclusive(owner)) {
                Claim cl = new Claim(sub, s, true);
                cl.scanNext = s.position + 1;
                claims.add(cl);
                if (s.nextUnconsumed(cl.scanNext) >= 0) {
                    return cl;
                }
            }
        }
        return null;
    }

    /** The claim of {@code s} under its current lease, or null. */
    private Claim currentClaimOf(ShardState s) {
        for (Claim cl : claims) {
            if (cl.shard == s && cl.current()) {
                return cl;
            }
        }
        return null;
    }

    /**
     * Claims of {@code s} from an older lease: those that consumed nothing in this transaction go;
     * one that did stays until the transaction ends, so that its commit fails ({@link
     * CommitPlan}: "claim from an older lease") and rolls back what it delivered. Dropped, it let
     * the commit succeed with the new lease's claim alone, while the re-read lease had handed the
     * same messages to this session again: a message delivered twice in one committed transaction
     * (seen in BackendFaultsTest when connection cuts made an instance take its lease again).
     */
    private void dropStaleClaimsOf(ShardState s) {
        claims.removeIf(cl -> cl.shard == s && !cl.current() && cl.taken.isEmpty());
    }

    private Claim claimOf(ShardState s) {
        for (Claim cl : claims) {
            if (cl.shard == s) {
                return cl;
            }
        }
        return null;
    }

    /**
     * Gives back the undelivered prefetch of the claims, and the claims themselves when nothing of
     * them is in the transaction: before waiting, and when the session's last consumer of the
     * subscription closes (an idle session must not hold messages other consumers could take).
     */
    void giveBackUndelivered() {
        for (int i = claims.size() - 1; i >= 0; i--) {
            Claim cl = claims.get(i);
            boolean release = cl.taken.isEmpty();
            if (release || !cl.prefetched.isEmpty()) {
                boolean available = cl.shard.giveBack(cl.prefetched, release, cl.epoch);
                cl.prefetched.clear();
                if (release) {
                    claims.remove(i);
                }
                cl.sub.released(available);
            }
        }
    }

    /** The session when the destination has message groups (each shard one session at a time), else null. */
    private Object groupSession() {
        return sub.destination.info().messageGroups() ? owner : null;
    }

    /**
     * The transaction committed: each claim it consumed from completes ({@link Claim#committed}),
     * and a released claim leaves. Returns how many messages were delivered.
     */
    long committed(boolean untold) {
        long delivered = 0;
        for (int i = claims.size() - 1; i >= 0; i--) {
            Claim cl = claims.get(i);
            if (cl.taken.isEmpty()) {
                continue;
            }
            delivered += cl.delivered.size();
            if (cl.committed(engine, untold)) {
                claims.remove(i);
            }
        }
        return delivered;
    }

    /**
     * The transaction rolled back or failed: every claim gives everything back ({@link
     * Claim#giveBackAll}) and leaves. Returns the last failure to record attempts, or null.
     */
    ShardQException rolledBack(boolean countAttempts) {
        ShardQException failure = null;
        for (Claim cl : claims) {
            try {
                cl.giveBackAll(engine, countAttempts);
            } catch (ShardQException e) {
                failure = e;
            }
        }
        claims.clear();
        return failure;
    }

    /** The outcome is unknown here: the shards are forgotten (re-read at the next lease), the claims dropped. */
    void forget() {
        for (Claim cl : claims) {
            cl.shard.forget(cl.epoch);
        }
        for (Claim cl : claims) {
            cl.sub.released(false);
        }
        claims.clear();
    }
}

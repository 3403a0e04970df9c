package io.shardq.jms.xa;

import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.jms.ShardQXAConnectionFactory;
import jakarta.jms.Message;
import jakarta.jms.TextMessage;
import jakarta.jms.XAConnection;
import jakarta.jms.XASession;
import jakarta.transaction.Transaction;
import jakarta.transaction.TransactionManager;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import org.postgresql.xa.PGXADataSource;

/**
 * The child JVM of the XA crash tests: Narayana coordinates a ShardQ XA session (sending or
 * receiving on a queue) and an insert into {@code orders} of another database, and the
 * JVM halts (Runtime.halt: nothing runs after it) at a chosen point of the two-phase commit:
 *
 * <ul>
 *   <li>{@code decided}: at the first commit of phase two, that is after both resources prepared
 *       and Narayana wrote its log (the decision is commit; nothing is committed yet);
 *   <li>{@code undecided}: at the prepare of the second resource, that is after ShardQ prepared
 *       and before Narayana decided anything (no log: recovery presumes abort).
 * </ul>
 *
 * <p>Arguments: point, operation ({@code send} or {@code receive}), ShardQ JDBC URL, other JDBC
 * URL, user, password, object store directory, queue.
 */
public final class XaCrashMain {
    public static void main(String[] args) throws Exception {
        String point = args[0];
        String operation = args[1];
        Narayana.configure(Path.of(args[6]));
        BrokerConfig config = BrokerConfig.builder()
                .isolated()
                .set(BrokerProperty.JDBC_URL, args[2])
                .set(BrokerProperty.JDBC_USER, args[4])
                .set(BrokerProperty.JDBC_PASSWORD, args[5])
                .set(BrokerProperty.HEARTBEAT_MS, 200)
                .set(BrokerProperty.LEASE_TTL_MS, 1500)
                .build();
        PGXADataSource other = new PGXADataSource();
        other.setUrl(args[3]);
        other.setUser(args[4]);
        other.setPassword(args[5]);
        ShardQXAConnectionFactory factory = new ShardQXAConnectionFactory(config);
        XAConnection connection = factory.createXAConnection();
        connection.start();
        XASession session = connection.createXASession();
        javax.sql.XAConnection db = other.getXAConnection();

        TransactionManager tm = com.arjuna.ats.jta.TransactionManager.transactionManager();
        tm.begin();
        Transaction tx = tm.getTransaction();
        XAResource shardq = session.getXAResource();
        XAResource pg = db.getXAResource();
        if (point.equals("decided")) {
            shardq = new Halting(shardq, "commit");
        } else {
            pg = new Halting(pg, "prepare");
        }
        tx.enlistResource(shardq);
        tx.enlistResource(pg);
        String body;
        if (operation.equals("send")) {
            body = "crash-" + point;
            session.createProducer(session.createQueue(args[7])).send(session.createTextMessage(body));
        } else {
            Message m = session.createConsumer(session.createQueue(args[7])).receive(30_000);
            body = ((TextMessage) m).getText();
            System.out.println("RECEIVED " + body);
        }
        try (Connection c = db.getConnection();
                PreparedStatement ps = c.prepareStatement("insert into orders (note) values (?)")) {
            ps.setString(1, body);
            ps.executeUpdate();
        }
        System.out.println("WORK-DONE " + body);
        tm.commit();
        System.out.println("COMMITTED-UNEXPECTEDLY");
        System.exit(2);
    }

    /** Halts the JVM when the transaction manager calls {@code method} on it. */
    record Halting(XAResource delegate, String method) implements XAResource {
        private void maybeHalt(String called) {
            if (called.equals(method)) {
                System.out.println("HALT at " + called);
                System.out.flush();
                Runtime.getRuntime().halt(3);
            }
        }

        @Override
        public void commit(Xid xid, boolean onePhase) throws XAException {
            maybeHalt("commit");
            delegate.commit(xid, onePhase);
        }

        @Override
        public void end(Xid xid, int flags) throws XAException {
            delegate.end(xid, flags);
        }

        @Override
        public void forget(Xid xid) throws XAException {
            delegate.forget(xid);
        }

        @Override
        public int getTransactionTimeout() throws XAException {
            return delegate.getTransactionTimeout();
        }

        @Override
        public boolean isSameRM(XAResource other) throws XAException {
            return other == this;
        }

        @Override
        public int prepare(Xid xid) throws XAException {
            maybeHalt("prepare");
            return delegate.prepare(xid);
        }

        @Override
        public Xid[] recover(int flag) throws XAException {
            return delegate.recover(flag);
        }

        @Override
        public void rollback(Xid xid) throws XAException {
            delegate.rollback(xid);
        }

        @Override
        public boolean setTransactionTimeout(int seconds) throws XAException {
            return delegate.setTransactionTimeout(seconds);
        }

        @Override
        public void start(Xid xid, int flags) throws XAException {
            delegate.start(xid, flags);
        }
    }
}

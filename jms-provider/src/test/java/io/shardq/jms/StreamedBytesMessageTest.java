package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.QueueOptions;
import io.shardq.broker.store.LargeBodies;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import jakarta.jms.BytesMessage;
import jakarta.jms.CompletionListener;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageNotReadableException;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.Topic;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Streamed bodies (issue 12) through JMS on a real PostgreSQL: sent from an InputStream, stored in
 * chunks in the sending transaction, read back one chunk at a time, and their storage gone with the
 * message (slice retirement, purge, rollback). The gigabyte with a bounded heap is {@link
 * StreamedGigabyteTest}.
 */
@PgTest
class StreamedBytesMessageTest extends JmsConnectionFixture {
    /** Three whole chunks and a part of one. */
    static final int SIZE = 3 * LargeBodies.CHUNK_BYTES + 12_345;

    static final String INPUT = "JMS_ShardQ_InputStream";
    static final String SAVE = "JMS_ShardQ_SaveStream";

    @Test
    void streamedBody_throughAQueue_readsBackIntact_andGoesWithItsSlice(TestDatabase db) throws Exception {
        factory.broker()
                .admin()
                .queues()
                .create("stream.q", QueueOptions.DEFAULTS.withShards(1).withSliceSize(16));
        Session s = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
        Queue q = s.createQueue("stream.q");
        MessageProducer p = s.createProducer(q);
        p.send(streamed(s, 1, SIZE));
        assertThat(storage(db, "stream.q")).isEqualTo(new long[] {1, 4});
        for (int i = 0; i < 15; i++) {
            p.send(s.createTextMessage("filler " + i)); // the slice of 16 fills up
        }
        MessageConsumer c = s.createConsumer(q);
        BytesMessage got = (BytesMessage) c.receive(30_000);
        assertThat(got.getBodyLength()).isEqualTo(SIZE);
        assertThat(readAll(got)).isEqualTo(SeededStream.sha256(1, SIZE));
        SeededStream.DigestSink sink = new SeededStream.DigestSink();
        got.setObjectProperty(SAVE, sink);
        assertThat(sink.count).isEqualTo(SIZE);
        assertThat(sink.digest.digest()).isEqualTo(SeededStream.sha256(1, SIZE));
        got.reset(); // read again from the start
        byte[] first = new byte[8];
        assertThat(got.readBytes(first)).isEqualTo(8);
        try (SeededStream expected = new SeededStream(1, 8)) {
            assertThat(first).isEqualTo(expected.readAllBytes());
        }
        for (int i = 0; i < 15; i++) {
            assertThat(c.receive(30_000)).isNotNull();
        }
        got.acknowledge();
        Awaitility.await().atMost(Duration.ofMinutes(1)).until(() -> storage(db, "stream.q")[0] == 0);
    }

    @Test
    void aBodyReadAfterItsMessageWasConsumedAndRetired_failsSayingSo(TestDatabase db) throws Exception {
        factory.broker()
                .admin()
                .queues()
                .create("stream.late", QueueOptions.DEFAULTS.withShards(1).withSliceSize(16));
        Session s = connection.createSession(true, Session.SESSION_TRANSACTED);
        Queue q = s.createQueue("stream.late");
        MessageProducer p = s.createProducer(q);
        p.send(streamed(s, 17, SIZE));
        for (int i = 0; i < 15; i++) {
            p.send(s.createTextMessage("filler " + i));
        }
        s.commit();
        MessageConsumer c = s.createConsumer(q);
        BytesMessage late = (BytesMessage) c.receive(30_000);
        for (int i = 0; i < 15; i++) {
            assertThat(c.receive(30_000)).isNotNull();
        }
        s.commit(); // consumed before its body was read
        Awaitility.await().atMost(Duration.ofMinutes(1)).until(() -> storage(db, "stream.late")[0] == 0);
        assertThat(late.getBodyLength()).as("the size is in the message").isEqualTo(SIZE);
        assertThatThrownBy(() -> late.readBytes(new byte[100]))
                .isInstanceOf(JMSException.class)
                .hasMessageContaining("is no longer stored")
                .hasMessageContaining("read a streamed body before the message is acknowledged");
        assertThatThrownBy(() -> late.setObjectProperty(SAVE, new SeededStream.DigestSink()))
                .isInstanceOf(JMSException.class)
                .hasMessageContaining("is no longer stored");
    }

    @Test
    void streamedBody_throughATopic_isStoredOnce_andReachesBothSubscriptions(TestDatabase db) throws Exception {
        factory.broker()
                .admin()
                .topics()
                .create("stream.t", QueueOptions.DEFAULTS.withShards(1).withSliceSize(16));
        try (Connection subs = factory.createConnection()) {
            subs.setClientID("stream-subs");
            subs.start();
            Session s = subs.createSession(true, Session.SESSION_TRANSACTED);
            Topic t = s.createTopic("stream.t");
            MessageConsumer a = s.createDurableConsumer(t, "a");
            MessageConsumer b = s.createDurableConsumer(t, "b");
            Session ps = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer p = ps.createProducer(ps.createTopic("stream.t"));
            p.send(streamed(ps, 2, SIZE));
            assertThat(storage(db, "stream.t")).as("stored once for both").isEqualTo(new long[] {1, 4});
            for (int i = 0; i < 15; i++) {
                p.send(ps.createTextMessage("filler " + i));
            }
            for (MessageConsumer c : new MessageConsumer[] {a, b}) {
                BytesMessage got = (BytesMessage) c.receive(30_000);
                assertThat(got.getBodyLength()).isEqualTo(SIZE);
                assertThat(readAll(got)).isEqualTo(SeededStream.sha256(2, SIZE));
                for (int i = 0; i < 15; i++) {
                    assertThat(c.receive(30_000)).isNotNull();
                }
                s.commit();
            }
            Awaitility.await().atMost(Duration.ofMinutes(1)).until(() -> storage(db, "stream.t")[0] == 0);
        }
    }

    @Test
    void rolledBackSend_andAFailedStream_leaveNoStorage(TestDatabase db) throws Exception {
        long before = chunks(db);
        Session s = connection.createSession(true, Session.SESSION_TRANSACTED);
        Queue q = s.createQueue("stream.rollback");
        MessageProducer p = s.createProducer(q);
        p.send(streamed(s, 3, SIZE));
        s.rollback();
        assertThat(chunks(db)).isEqualTo(before);

        BytesMessage failing = s.createBytesMessage();
        failing.setObjectProperty(INPUT, new FailingStream(LargeBodies.CHUNK_BYTES + 100));
        p.send(s.createTextMessage("before"));
        assertThatThrownBy(() -> p.send(failing))
                .isInstanceOf(JMSException.class)
                .hasMessageContaining("reading the body stream")
                .hasMessageContaining("disk on fire");
        s.commit(); // the transaction's other send is kept
        assertThat(chunks(db)).isEqualTo(before);
        assertThat(storage(db, "stream.rollback")).isEqualTo(new long[] {0, 0});
        MessageConsumer c = s.createConsumer(q);
        assertThat(((jakarta.jms.TextMessage) c.receive(30_000)).getText()).isEqualTo("before");
        assertThat(c.receive(200)).isNull();
        s.commit();
    }

    @Test
    void onTheApplicationsConnection_theBodyCommitsAndRollsBackWithIt(TestDatabase db) throws Exception {
        long before = chunks(db);
        try (java.sql.Connection jdbc = db.connect()) {
            jdbc.setAutoCommit(false);
            Session s = ((ShardQConnection) connection).createSession(jdbc);
            MessageProducer p = s.createProducer(s.createQueue("stream.app"));
            p.send(streamed(s, 13, SIZE));
            s.commit(); // written into the application's transaction, not committed
            jdbc.rollback();
            assertThat(chunks(db)).isEqualTo(before);
            p.send(streamed(s, 14, SIZE));
            s.commit();
            jdbc.commit();
            s.close();
            jdbc.setAutoCommit(true);
            Session auto = ((ShardQConnection) connection).createSession(jdbc);
            assertThatThrownBy(() ->
                            auto.createProducer(auto.createQueue("stream.app")).send(streamed(auto, 15, 10)))
                    .isInstanceOf(JMSException.class)
                    .hasMessageContaining("autocommit");
        }
        Session r = connection.createSession(true, Session.SESSION_TRANSACTED);
        MessageConsumer c = r.createConsumer(r.createQueue("stream.app"));
        BytesMessage got = (BytesMessage) c.receive(30_000);
        assertThat(readAll(got)).isEqualTo(SeededStream.sha256(14, SIZE));
        assertThat(c.receive(200)).isNull();
        r.commit();
    }

    @Test
    void aReceivedStreamedMessage_sentOn_isStreamedAgain(TestDatabase db) throws Exception {
        Session s = connection.createSession(true, Session.SESSION_TRANSACTED);
        s.createProducer(s.createQueue("stream.hop1")).send(streamed(s, 16, SIZE));
        s.commit();
        Message got = s.createConsumer(s.createQueue("stream.hop1")).receive(30_000);
        s.createProducer(s.createQueue("stream.hop2")).send(got); // forwarded in the consuming transaction
        s.commit();
        assertThat(storage(db, "stream.hop2")).as("a body of its own").isEqualTo(new long[] {1, 4});
        BytesMessage forwarded =
                (BytesMessage) s.createConsumer(s.createQueue("stream.hop2")).receive(30_000);
        assertThat(forwarded.getBodyLength()).isEqualTo(SIZE);
        assertThat(readAll(forwarded)).isEqualTo(SeededStream.sha256(16, SIZE));
        s.commit();
    }

    @Test
    void rolledBackReceive_deliversTheBodyAgain(TestDatabase db) throws Exception {
        Session s = connection.createSession(true, Session.SESSION_TRANSACTED);
        Queue q = s.createQueue("stream.redeliver");
        s.createProducer(q).send(streamed(s, 4, SIZE));
        s.commit();
        MessageConsumer c = s.createConsumer(q);
        BytesMessage first = (BytesMessage) c.receive(30_000);
        assertThat(first.readBytes(new byte[LargeBodies.CHUNK_BYTES + 7])).isEqualTo(LargeBodies.CHUNK_BYTES + 7);
        s.rollback();
        BytesMessage again = (BytesMessage) c.receive(30_000);
        assertThat(again.getJMSRedelivered()).isTrue();
        assertThat(readAll(again)).isEqualTo(SeededStream.sha256(4, SIZE));
        s.commit();
    }

    @Test
    void deadLetter_keepsItsOwnCopyOfTheBody(TestDatabase db) throws Exception {
        factory.broker()
                .admin()
                .queues()
                .create(
                        "stream.dl",
                        QueueOptions.DEFAULTS.withShards(1).withSliceSize(16).withMaxAttempts(2));
        Session s = connection.createSession(true, Session.SESSION_TRANSACTED);
        Queue q = s.createQueue("stream.dl");
        MessageProducer p = s.createProducer(q);
        p.send(streamed(s, 5, SIZE));
        for (int i = 0; i < 15; i++) {
            p.send(s.createTextMessage("filler " + i));
        }
        s.commit();
        MessageConsumer c = s.createConsumer(q);
        for (int attempt = 0; attempt < 2; attempt++) {
            assertThat(c.receive(30_000)).isInstanceOf(BytesMessage.class);
            s.rollback();
        }
        for (int i = 0; i < 15; i++) { // the streamed one is dead-lettered in this transaction
            assertThat(c.receive(30_000)).isNotInstanceOf(BytesMessage.class);
        }
        s.commit();
        Awaitility.await().atMost(Duration.ofMinutes(1)).until(() -> storage(db, "stream.dl")[0] == 0);
        assertThat(storage(db, "stream.dl.DLQ")).as("the dead letter's copy").isEqualTo(new long[] {1, 4});

        BytesMessage dead =
                (BytesMessage) s.createConsumer(s.createQueue("stream.dl.DLQ")).receive(30_000);
        assertThat(dead.getStringProperty("JMS_ShardQ_DeadLetterReason")).contains("delivery failed 2 times");
        assertThat(dead.getBodyLength()).isEqualTo(SIZE);
        assertThat(readAll(dead)).isEqualTo(SeededStream.sha256(5, SIZE));
        s.commit();
    }

    @Test
    void expiredMessage_reachesItsExpiryQueue_withItsBody(TestDatabase db) throws Exception {
        factory.broker().admin().queues().createOrGet("stream.exp", QueueOptions.DEFAULTS.withShards(1));
        factory.broker().admin().setDeliveryPolicy("stream.exp", "stream.exp.expired", null, null);
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer p = s.createProducer(s.createQueue("stream.exp"));
        p.setTimeToLive(5);
        BytesMessage m = streamed(s, 12, SIZE);
        p.send(m);
        p.setTimeToLive(0);
        p.send(s.createTextMessage("lasting"));
        long deadline = System.currentTimeMillis() + 10_000;
        while (System.currentTimeMillis() <= m.getJMSExpiration() && System.currentTimeMillis() < deadline) {
            Thread.onSpinWait(); // until its expiration has passed, by the clock the engine uses
        }
        MessageConsumer c = s.createConsumer(s.createQueue("stream.exp"));
        Message first = c.receive(30_000);
        assertThat(first).as("the expired one is never delivered").isInstanceOf(jakarta.jms.TextMessage.class);
        Session es = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
        BytesMessage expired = (BytesMessage)
                es.createConsumer(es.createQueue("stream.exp.expired")).receive(30_000);
        assertThat(expired).isNotNull();
        assertThat(expired.getBodyLength()).isEqualTo(SIZE);
        assertThat(readAll(expired)).isEqualTo(SeededStream.sha256(12, SIZE));
        expired.acknowledge();
    }

    @Test
    void purge_leavesNoOrphans(TestDatabase db) throws Exception {
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = s.createQueue("stream.purge");
        MessageProducer p = s.createProducer(q);
        p.send(streamed(s, 6, SIZE));
        p.send(streamed(s, 7, 10));
        assertThat(storage(db, "stream.purge")).isEqualTo(new long[] {2, 5});
        long before = chunks(db);
        assertThat(factory.broker().admin().queues().purge("stream.purge")).isEqualTo(2);
        assertThat(storage(db, "stream.purge")).isEqualTo(new long[] {0, 0});
        assertThat(chunks(db)).isEqualTo(before - 5);
    }

    @Test
    void droppedQueue_andATopicMessageNobodyWanted_leaveNoOrphans(TestDatabase db) throws Exception {
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        long before = chunks(db);
        factory.broker().admin().queues().create("stream.drop", QueueOptions.DEFAULTS);
        s.createProducer(s.createQueue("stream.drop")).send(streamed(s, 10, SIZE));
        assertThat(chunks(db)).isEqualTo(before + 4);
        factory.broker().admin().queues().drop("stream.drop", true);
        assertThat(chunks(db)).isEqualTo(before);

        factory.broker().admin().topics().create("stream.nobody", QueueOptions.DEFAULTS);
        s.createProducer(s.createTopic("stream.nobody")).send(streamed(s, 11, SIZE)); // no subscription: not stored
        assertThat(chunks(db)).isEqualTo(before);
    }

    @Test
    void browsing_showsTheSize_andReadsTheBody(TestDatabase db) throws Exception {
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = s.createQueue("stream.browse");
        s.createProducer(q).send(streamed(s, 8, SIZE));
        try (var browser = s.createBrowser(q)) {
            BytesMessage seen = (BytesMessage) browser.getEnumeration().nextElement();
            assertThat(seen.getBodyLength()).isEqualTo(SIZE);
            assertThat(readAll(seen)).isEqualTo(SeededStream.sha256(8, SIZE));
        }
    }

    @Test
    void badUses_areRefused_namingTheProblem() throws Exception {
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = s.createQueue("stream.bad");
        MessageProducer p = s.createProducer(q);
        InputStream in = new SeededStream(9, 10);
        assertThatThrownBy(() -> s.createTextMessage("x").setObjectProperty(INPUT, in))
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining("for a BytesMessage only, not a TextMessage");
        assertThatThrownBy(() -> s.createStreamMessage().setObjectProperty(INPUT, in))
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining("not a StreamMessage");
        assertThatThrownBy(() -> s.createBytesMessage().setObjectProperty(INPUT, null))
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining("must not be null");
        assertThatThrownBy(() -> s.createBytesMessage().setObjectProperty(INPUT, "a file name"))
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining("expected a java.io.InputStream");
        assertThatThrownBy(() -> s.createBytesMessage().setStringProperty(INPUT, "a file name"))
                .isInstanceOf(MessageFormatException.class);
        BytesMessage written = s.createBytesMessage();
        written.writeInt(1);
        assertThatThrownBy(() -> written.setObjectProperty(INPUT, in))
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining("4 bytes written");
        BytesMessage streamedOne = streamed(s, 9, 10);
        assertThatThrownBy(() -> streamedOne.writeInt(1))
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining("streamed from JMS_ShardQ_InputStream");
        assertThatThrownBy(() -> p.send(streamedOne, DeliveryMode.NON_PERSISTENT, 4, 0))
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining("must be sent PERSISTENT");
        p.setDeliveryDelay(1000);
        assertThatThrownBy(() -> p.send(streamedOne))
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining("delivery delay");
        p.setDeliveryDelay(0);
        CompletionListener ignored = new CompletionListener() {
            @Override
            public void onCompletion(Message message) {}

            @Override
            public void onException(Message message, Exception exception) {}
        };
        assertThatThrownBy(() -> p.send(streamedOne, ignored))
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining("asynchronously");
        assertThatThrownBy(() -> streamedOne.setObjectProperty(SAVE, new SeededStream.DigestSink()))
                .isInstanceOf(MessageNotReadableException.class);
        assertThat(s.createConsumer(q).receive(200))
                .as("nothing refused was sent")
                .isNull();

        p.send(streamedOne);
        Session cs = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
        BytesMessage got = (BytesMessage) cs.createConsumer(q).receive(30_000);
        assertThat(got.isBodyAssignableTo(byte[].class)).isFalse();
        assertThatThrownBy(() -> got.getBody(byte[].class))
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining("is streamed (10 bytes)")
                .hasMessageContaining("readBytes");
        assertThatThrownBy(() -> got.setObjectProperty("JMS_ShardQ_OutputStream", new SeededStream.DigestSink()))
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining("JMS_ShardQ_SaveStream");
        assertThatThrownBy(() -> got.setObjectProperty(SAVE, "not a stream"))
                .isInstanceOf(MessageFormatException.class)
                .hasMessageContaining("OutputStream");
        got.acknowledge();
    }

    /** A BytesMessage whose body is streamed from {@code size} seeded bytes. */
    static BytesMessage streamed(Session s, long seed, long size) throws JMSException {
        BytesMessage m = s.createBytesMessage();
        m.setObjectProperty(INPUT, new SeededStream(seed, size));
        return m;
    }

    /** The SHA-256 of the body, read with readBytes 64 KiB at a time from where it is. */
    static byte[] readAll(BytesMessage m) throws JMSException {
        MessageDigest d = SeededStream.digest();
        byte[] buf = new byte[64 * 1024];
        int n;
        while ((n = m.readBytes(buf)) > 0) {
            d.update(buf, 0, n);
        }
        return d.digest();
    }

    /** Rows of shardq.large_body and of their chunks for the messages of {@code destination}. */
    static long[] storage(TestDatabase db, String destination) throws Exception {
        try (java.sql.Connection c = db.connect();
                java.sql.PreparedStatement ps = c.prepareStatement("select count(distinct b.id), count(ch.body_id)"
                        + " from shardq.large_body b join shardq.destination d on d.id = b.destination_id"
                        + " left join shardq.large_body_chunk ch on ch.body_id = b.id where d.name = ?")) {
            ps.setString(1, destination);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new long[] {rs.getLong(1), rs.getLong(2)};
            }
        }
    }

    /** All chunk rows, whichever message they belong to. */
    static long chunks(TestDatabase db) throws Exception {
        try (java.sql.Connection c = db.connect();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("select count(*) from shardq.large_body_chunk")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Gives {@code good} bytes, then fails. */
    static final class FailingStream extends InputStream {
        private long left;

        FailingStream(long good) {
            this.left = good;
        }

        @Override
        public int read() throws IOException {
            if (left-- <= 0) {
                throw new IOException("disk on fire");
            }
            return 7;
        }
    }
}

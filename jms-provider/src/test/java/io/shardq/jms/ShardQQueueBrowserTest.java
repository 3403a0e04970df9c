package io.shardq.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardq.broker.BrokerProperty;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import jakarta.jms.Connection;
import jakarta.jms.IllegalStateException;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.util.Collections;
import java.util.Enumeration;
import java.util.NoSuchElementException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** QueueBrowser over the engine's lazy browse cursor: the selector before any limit, the Enumeration contract. */
@PgTest
class ShardQQueueBrowserTest {
    ShardQConnectionFactory factory;
    Connection connection;
    Session session;

    @BeforeEach
    void open(TestDatabase db) throws Exception {
        factory = new ShardQConnectionFactory(
                db.brokerConfig().set(BrokerProperty.HEARTBEAT_MS, 200).build());
        connection = factory.createConnection();
        connection.start();
        session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
    }

    @AfterEach
    void close() throws Exception {
        connection.close();
        factory.close();
    }

    @Test
    void selectorBrowse_matchingNothingAmongManyRows_givesAnEmptyEnumeration() throws Exception {
        Queue q = session.createQueue("browse.many");
        int n = 12_000; // more than the 10,000 rows the eager browser used to read
        send(q, n);

        Enumeration<?> none = session.createBrowser(q, "i < 0").getEnumeration();
        assertThat(none.hasMoreElements()).isFalse();
        assertThat(none.hasMoreElements()).isFalse();
        assertThatThrownBy(none::nextElement).isInstanceOf(NoSuchElementException.class);

        Enumeration<?> last = session.createBrowser(q, "i = " + (n - 1)).getEnumeration();
        assertThat(Collections.list(last)).singleElement().satisfies(m -> assertThat(((TextMessage) m).getText())
                .isEqualTo("m" + (n - 1)));
        assertThat(factory.broker().admin().queues().backlog("browse.many")).isEqualTo(n);
    }

    @Test
    void enumerations_areIndependent_followTheContract_andEndWithTheBrowser() throws Exception {
        Queue q = session.createQueue("browse.contract");
        send(q, 3);
        QueueBrowser browser = session.createBrowser(q);
        Enumeration<?> first = browser.getEnumeration();
        Enumeration<?> second = browser.getEnumeration();

        assertThat(first.hasMoreElements()).isTrue();
        assertThat(first.hasMoreElements()).isTrue(); // asking twice skips nothing
        assertThat(((TextMessage) first.nextElement()).getText()).isEqualTo("m0");

        assertThat(((TextMessage) second.nextElement()).getText()).isEqualTo("m0"); // without hasMoreElements
        assertThat(((TextMessage) second.nextElement()).getText()).isEqualTo("m1");
        assertThat(((TextMessage) second.nextElement()).getText()).isEqualTo("m2");
        assertThat(second.hasMoreElements()).isFalse();
        assertThatThrownBy(second::nextElement).isInstanceOf(NoSuchElementException.class);

        browser.close();
        assertThat(first.hasMoreElements()).isFalse();
        assertThatThrownBy(first::nextElement).isInstanceOf(NoSuchElementException.class);
        assertThatThrownBy(browser::getEnumeration).isInstanceOf(IllegalStateException.class);
        assertThat(factory.broker().admin().queues().backlog("browse.contract")).isEqualTo(3);
    }

    @Test
    void enumeration_endsWhenTheSessionCloses() throws Exception {
        Queue q = session.createQueue("browse.session");
        send(q, 2);
        Session other = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Enumeration<?> e = other.createBrowser(q).getEnumeration();
        assertThat(e.hasMoreElements()).isTrue();
        e.nextElement();
        other.close();
        assertThat(e.hasMoreElements()).isFalse();
    }

    private void send(Queue q, int n) throws Exception {
        Session tx = connection.createSession(true, Session.SESSION_TRANSACTED);
        MessageProducer p = tx.createProducer(q);
        for (int i = 0; i < n; i++) {
            TextMessage m = tx.createTextMessage("m" + i);
            m.setIntProperty("i", i);
            p.send(m);
        }
        tx.commit();
        tx.close();
    }
}

package io.shardq.broker.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.Broker;
import io.shardq.broker.QueueOptions;
import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import org.junit.jupiter.api.Test;

/**
 * Catalog reads that finish out of order: the snapshot of the read that started later is kept,
 * whichever finishes last (what the watcher's late read of a queue's creation did to a policy
 * change the instance had just made and read back: {@code GroupsAcrossGrowTest} sent grouped
 * messages to the session's shard). The snapshots are real ones, read before and after a change.
 */
@PgTest
class CatalogOrderTest {

    @Test
    void aReadThatStartedEarlier_neverReplacesOneThatStartedLater(TestDatabase db) {
        DestinationInfo before;
        DestinationInfo after;
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            before = broker.admin().queues().create("order.q", QueueOptions.DEFAULTS.withShards(4));
            after = broker.admin().setDeliveryPolicy("order.q", null, null, null, true);
        }
        assertThat(before.messageGroups()).isFalse();
        assertThat(after.messageGroups()).isTrue();

        Catalog catalog = new Catalog(db.dataSource());
        Object early = catalog.readStarted("order.q", before);
        Object late = catalog.readStarted("order.q", after);
        catalog.readEnded(late);
        catalog.readEnded(early); // finished last, started first: older news
        assertThat(catalog.known("order.q")).contains(after);

        // and in the order they started, the later one wins as well
        Object first = catalog.readStarted("order.q", before);
        Object second = catalog.readStarted("order.q", after);
        catalog.readEnded(first);
        assertThat(catalog.known("order.q")).contains(before);
        catalog.readEnded(second);
        assertThat(catalog.known("order.q")).contains(after);

        // a reload returns the newest snapshot: the database's, read now
        assertThat(catalog.reload("order.q"))
                .get()
                .extracting(DestinationInfo::messageGroups)
                .isEqualTo(true);
    }

    @Test
    void aDestinationFoundGone_isNotBroughtBackByAnOlderRead(TestDatabase db) {
        DestinationInfo existing;
        try (Broker broker = Broker.start(db.brokerConfig().build())) {
            existing = broker.admin().queues().create("gone.q", QueueOptions.DEFAULTS.withShards(1));
        }
        Catalog catalog = new Catalog(db.dataSource());
        Object early = catalog.readStarted("gone.q", existing);
        Object late = catalog.readStarted("gone.q", null); // it was dropped between the two reads
        catalog.readEnded(late);
        catalog.readEnded(early);
        assertThat(catalog.known("gone.q")).isEmpty();

        // once no older read runs, the tombstone goes: a new read finds the queue again
        assertThat(catalog.find("gone.q")).contains(existing);
        Object stale = catalog.readStarted("gone.q", existing);
        catalog.forget("gone.q"); // dropped by this instance while that read ran
        catalog.readEnded(stale);
        assertThat(catalog.known("gone.q")).isEmpty();
    }
}

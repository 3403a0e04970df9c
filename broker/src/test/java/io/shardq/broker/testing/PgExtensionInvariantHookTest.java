package io.shardq.broker.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.shardq.broker.Broker;
import io.shardq.broker.QueueOptions;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * The invariant check is wired in: a {@code @PgTest} class that leaves a cursor beyond its
 * shard's head fails after its tests passed, with the invariant and the row in the failure.
 */
class PgExtensionInvariantHookTest {
    /** Set only while this test launches {@link CorruptsItsDatabase}, so no build runs it alone. */
    static volatile boolean launchingVictim;

    @Test
    void aClassLeavingACursorBeyondTheHead_failsAfterItsTestsPassed() {
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(CorruptsItsDatabase.class))
                .build();
        launchingVictim = true;
        try {
            LauncherFactory.create().execute(request, listener);
        } finally {
            launchingVictim = false;
        }
        TestExecutionSummary summary = listener.getSummary();

        assertThat(summary.getTestsSucceededCount())
                .as("the class's own test passed")
                .isEqualTo(1);
        List<TestExecutionSummary.Failure> failures = summary.getFailures();
        assertThat(failures).hasSize(1);
        assertThat(failures.get(0).getTestIdentifier().isContainer())
                .as("the class failed, not a test")
                .isTrue();
        assertThat(failures.get(0).getException())
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("after CorruptsItsDatabase")
                .hasMessageContaining("cursor_beyond_head")
                .hasMessageContaining("destination=hook.q")
                .hasMessageContaining("position=1000, head=0");
    }

    /** A class whose test passes and leaves its database broken. */
    @PgTest
    @EnabledIf("io.shardq.broker.testing.PgExtensionInvariantHookTest#launching")
    static class CorruptsItsDatabase {
        @Test
        void leavesACursorBeyondTheHead(TestDatabase db) throws Exception {
            try (Broker broker = Broker.start(db.brokerConfig().build())) {
                broker.admin().queues().create("hook.q", QueueOptions.DEFAULTS.withShards(1));
            }
            try (Connection c = db.connect();
                    Statement st = c.createStatement()) {
                st.executeUpdate("UPDATE shardq.cursor SET position = 1000");
            }
        }
    }

    static boolean launching() {
        return launchingVictim;
    }
}

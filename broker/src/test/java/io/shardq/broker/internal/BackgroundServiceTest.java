package io.shardq.broker.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** The startstop contract every background service relies on. No database needed. */
class BackgroundServiceTest {

    /** Waits an hour between rounds unless triggered; counts rounds and stops. */
    static final class Counting extends BackgroundService {
        final AtomicInteger rounds = new AtomicInteger();
        final AtomicInteger afterStops = new AtomicInteger();
        final AtomicReference<String> thread = new AtomicReference<>();
        final CountDownLatch firstRound = new CountDownLatch(1);

        Counting() {
            super("shardq-7-counting-1");
        }

        @Override
        protected long runOnce() {
            thread.set(
                    Thread.currentThread().getName() + (Thread.currentThread().isDaemon() ? " daemon" : ""));
            rounds.incrementAndGet();
            firstRound.countDown();
            return TimeUnit.HOURS.toMillis(1);
        }

        @Override
        protected void afterStop() {
            afterStops.incrementAndGet();
        }
    }

    @Test
    void stop_isSafeBeforeStart_andTwice() {
        Counting s = new Counting();
        s.stop();
        s.stop();
        s.start(); // a stopped service stays stopped
        assertThat(s.isRunning()).isFalse();
        assertThat(s.rounds).hasValue(0);
        assertThat(s.afterStops).hasValue(1);
    }

    @Test
    void start_runsOnANamedDaemonThread_andStopEndsIt() throws Exception {
        Counting s = new Counting();
        s.start();
        s.start();
        assertThat(s.firstRound.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(s.thread).hasValue("shardq-7-counting-1 daemon");
        assertThat(s.isRunning()).isTrue();
        s.stop();
        s.stop();
        assertThat(s.isRunning()).isFalse();
        assertThat(s.rounds).hasValue(1);
        assertThat(s.afterStops).hasValue(1);
    }

    @Test
    void trigger_runsTheNextRound_withoutWaitingForTheInterval() throws Exception {
        Counting s = new Counting();
        s.start();
        try {
            assertThat(s.firstRound.await(10, TimeUnit.SECONDS)).isTrue();
            s.trigger();
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> s.rounds.get() == 2);
        } finally {
            s.stop();
        }
    }

    @Test
    void failedRound_isRetried_andTheServiceKeepsRunning() {
        AtomicInteger calls = new AtomicInteger();
        BackgroundService s = new BackgroundService("shardq-7-failing-1") {
            @Override
            protected long runOnce() {
                if (calls.incrementAndGet() == 1) {
                    throw new IllegalStateException("database briefly gone");
                }
                return TimeUnit.HOURS.toMillis(1);
            }
        };
        s.start();
        try {
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> calls.get() >= 2);
            assertThat(s.isRunning()).isTrue();
        } finally {
            s.stop();
        }
    }
}

package io.shardq.broker.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** A clock tests move by hand (db-scheduler's {@code SettableClock}); millisecond resolution. */
public final class SettableClock extends Clock {
    private final AtomicLong millis;

    public SettableClock(Instant start) {
        this.millis = new AtomicLong(start.toEpochMilli());
    }

    /** Starts at the current time, truncated to the millisecond. */
    public static SettableClock now() {
        return new SettableClock(Instant.now());
    }

    public void advance(Duration d) {
        millis.addAndGet(d.toMillis());
    }

    public void set(Instant t) {
        millis.set(t.toEpochMilli());
    }

    @Override
    public long millis() {
        return millis.get();
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis.get());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}

package io.shardq.perf;

import io.shardq.broker.Broker;
import java.util.Optional;

/**
 * The near-cache row of {@code perf cache-read} (issue 11: a near-cache hit's p50 under one
 * microsecond). The broker of this build has no near cache ({@code CacheOptions} and {@code
 * KvCache} have no switch for one, {@code CacheStats} no near-hit counter), so {@link #system}
 * returns nothing and the report says the figures are not available: nothing is estimated.
 *
 * <p>When the near cache lands, this is the one place to change: return a {@link ReadSystem}
 * named {@value #NAME} that opens the cache with the near cache on, loads it as {@link
 * KvReadSystem} does, and reports through {@link ReadSystem#servedCount()} the near-cache hits
 * from the cache's stats, so the report can show that the window's reads were near hits (the
 * warm-up reads every key at least once at these sizes). {@link KvReadSystem} must then turn the
 * near cache off, to keep measuring the miss served from PostgreSQL.
 */
final class NearCache {
    static final String NAME = "near";

    static final String UNAVAILABLE =
            "not available: this build's cache API has no near cache yet (no CacheOptions/KvCache switch, no"
                    + " near-hit counter in CacheStats); no figure is estimated";

    private NearCache() {}

    /** The near-cache system, or empty while the broker has no near cache. */
    static Optional<ReadSystem> system(Broker broker) {
        return Optional.empty();
    }
}

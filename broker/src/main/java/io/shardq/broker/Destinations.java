package io.shardq.broker;

import io.shardq.broker.catalog.Catalog;
import io.shardq.broker.catalog.CatalogWatcher;
import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.catalog.Names;
import io.shardq.broker.catalog.TemporaryDestinations;
import io.shardq.broker.shard.DestinationRuntime;
import io.shardq.broker.shard.Engine;
import io.shardq.broker.shard.EngineStats;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The destinations one {@link Broker} serves: a {@link DestinationRuntime} per destination it
 * sent to or received from, by name and by id, made on first use (created in the catalog first
 * when {@code shardq.auto-create-destinations} allows) and kept in line with the catalog.
 *
 * <p>Invariants: at most one runtime per name, and {@code byId} holds exactly the runtimes of
 * {@code byName} (a replaced runtime leaves both); a runtime's destination id never changes: a
 * destination dropped and created again gets a new runtime, and nothing of the old one applies
 * ({@link #apply}); consumers waiting on a removed runtime are woken. A runtime is returned only
 * if the catalog, as last seen, still names its id, so a catalog NOTIFY handled during its
 * creation is never lost. Changes come from this instance's {@link Admin} at once and from other
 * instances by the catalog watcher ({@link CatalogChanges}).
 */
final class Destinations {
    /** The instance's log: a destination dropped or re-created is the instance's news. */
    private static final Logger LOG = LoggerFactory.getLogger(Broker.class);

    private final Engine engine;
    private final Catalog catalog;
    private final Admin admin;
    private final EngineStats stats;
    private final long instanceId;
    private final Runnable checkOpen;
    private final boolean autoCreate;
    private final int defaultShards;
    private final Map<String, DestinationRuntime> runtimes = new ConcurrentHashMap<>();
    private final Map<Integer, DestinationRuntime> runtimesById = new ConcurrentHashMap<>();

    /** @param checkOpen throws when the instance is closed */
    Destinations(
            BrokerConfig config,
            Engine engine,
            Catalog catalog,
            Admin admin,
            EngineStats stats,
            long instanceId,
            Runnable checkOpen) {
        this.engine = engine;
        this.catalog = catalog;
        this.admin = admin;
        this.stats = stats;
        this.instanceId = instanceId;
        this.checkOpen = checkOpen;
        this.autoCreate = config.getBoolean(BrokerProperty.AUTO_CREATE_DESTINATIONS);
        this.defaultShards = config.getInt(BrokerProperty.DEFAULT_SHARDS);
    }

    /** The runtime of {@code name} if this instance has made one, else null. */
    DestinationRuntime get(String name) {
        return runtimes.get(name);
    }

    /** Every runtime (a live view). */
    Collection<DestinationRuntime> all() {
        return runtimes.values();
    }

    /** Every runtime by destination id (a live view, read only). */
    Map<Integer, DestinationRuntime> byId() {
        return java.util.Collections.unmodifiableMap(runtimesById);
    }

    /** Brings the runtime of {@code name} in line with the catalog as it is now (read again). */
    void reload(String name) {
        catalog.reload(name);
        apply(name);
    }

    DestinationRuntime deadLetterRuntime(String name) {
        if (!runtimes.containsKey(name) && catalog.find(name).isEmpty()) {
            admin.queues().createOrGet(name, QueueOptions.DEFAULTS.withShards(defaultShards));
        }
        return runtime(name, false);
    }

    DestinationRuntime runtime(String name, boolean createIfMissing) {
        checkOpen.run();
        DestinationRuntime rt = runtimes.get(name);
        if (rt != null) {
            return rt;
        }
        Names.checkDestination(name);
        while (true) {
            DestinationRuntime created = createRuntime(name, createIfMissing);
            // a catalog NOTIFY handled while we read may have found this snapshot stale already
            Optional<DestinationInfo> latest = catalog.known(name);
            if (latest.isPresent() && latest.get().id() == created.info().id()) {
                return created;
            }
            apply(name);
        }
    }

    /** {@link Broker#requireDestination(String, boolean, String)}. */
    DestinationInfo require(String name, boolean createIfMissing, String kind) {
        checkOpen.run();
        DestinationRuntime rt = runtimes.get(name);
        if (rt == null && "topic".equals(kind) && createIfMissing && autoCreate) {
            Names.checkDestination(name);
            if (catalog.find(name).isEmpty()) {
                if (TemporaryDestinations.hasTemporaryName(name)) {
                    throw TemporaryDestinations.gone(name); // a deleted temporary topic is not created as a topic
                }
                admin.topics().createOrGet(name, QueueOptions.DEFAULTS.withShards(defaultShards));
            }
        }
        DestinationInfo info = runtime(name, createIfMissing).info();
        if (!info.kind().equals(kind)) {
            throw new ShardQException(
                    ErrorKind.INVALID_ARGUMENT, "\"" + name + "\" is a " + info.kind() + ", not a " + kind);
        }
        return info;
    }

    private DestinationRuntime createRuntime(String name, boolean createIfMissing) {
        DestinationInfo info = catalog.find(name).orElse(null);
        if (info == null) {
            if (TemporaryDestinations.hasTemporaryName(name)) {
                throw TemporaryDestinations.gone(name); // never auto-created: it was deleted
            }
            if (!createIfMissing || !autoCreate) {
                throw new ShardQException(
                        ErrorKind.UNKNOWN_DESTINATION,
                        "destination \"" + name + "\" does not exist"
                                + (autoCreate
                                        ? ""
                                        : " (automatic creation is off: shardq.auto-create-destinations=false)"));
            }
            info = admin.queues().createOrGet(name, QueueOptions.DEFAULTS.withShards(defaultShards));
        }
        DestinationInfo found = info;
        return runtimes.computeIfAbsent(name, n -> {
            DestinationRuntime created = new DestinationRuntime(engine, found);
            runtimesById.put(found.id(), created);
            return created;
        });
    }

    /** Forgets a destination that was dropped. */
    void forget(String name) {
        catalog.forget(name);
        apply(name);
    }

    /**
     * Brings the runtime of {@code name}, if there is one, in line with the catalog's newest
     * snapshot: removed when the destination is gone, replaced when its id changed (dropped and
     * created again: nothing of the old one applies), else refreshed (flags, shard count, max
     * attempts). Consumers waiting on a removed runtime are woken. One at a time, each with the
     * snapshot known when it runs, so a later call never applies an older snapshot than an earlier
     * one (the catalog never goes back: {@link Catalog}).
     */
    synchronized void apply(String name) {
        DestinationInfo fresh = catalog.known(name).orElse(null);
        DestinationRuntime[] old = new DestinationRuntime[1];
        DestinationRuntime now = runtimes.compute(name, (n, rt) -> {
            if (rt == null || (fresh != null && rt.info().id() == fresh.id())) {
                return rt;
            }
            old[0] = rt;
            if (fresh == null) {
                return null;
            }
            DestinationRuntime replacement = new DestinationRuntime(engine, fresh);
            runtimesById.put(fresh.id(), replacement);
            return replacement;
        });
        if (old[0] != null) {
            runtimesById.remove(old[0].info().id(), old[0]);
            old[0].refresh(old[0].info()); // wakes its waiting consumers
            LOG.info(
                    "{} - {} {} (id {}) {}",
                    instanceId,
                    old[0].info().kind(),
                    name,
                    old[0].info().id(),
                    fresh == null ? "was dropped" : "was re-created as id " + fresh.id());
        } else if (now != null && fresh != null) {
            now.refresh(fresh);
        }
    }

    /** Catalog changes from the {@link CatalogWatcher}: the in-memory state follows. */
    final class CatalogChanges implements CatalogWatcher.Listener {
        @Override
        public void changed(String name, Optional<DestinationInfo> fresh) {
            apply(name); // the catalog holds the newest snapshot read, maybe newer than fresh
            stats.recordCatalogChange();
        }

        @Override
        public void reloaded(List<DestinationInfo> all) {
            for (String name : List.copyOf(runtimes.keySet())) {
                apply(name);
            }
        }
    }
}

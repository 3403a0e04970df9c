package io.shardq.perf;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The systems a run can measure, by name. Adding a system is one class and one line here.
 *
 * <p>A name listed in {@code COMING} is known but not registered yet; asked for, it is reported as
 * not available yet and the run goes on with the others.
 */
final class SystemRegistry {
    static final String SHARDQ = "shardq";

    /**
     * The default of {@code --systems}: ShardQ, the one-round-trip ceiling and the naive queue
     * ({@value Ceiling2System#NAME} runs when asked for).
     */
    static final List<String> DEFAULT = List.of(SHARDQ, CeilingSystem.NAME, NaiveSkipLockedSystem.NAME);

    /** Names that are planned but have no implementation yet. */
    private static final Set<String> COMING = Set.of(SHARDQ);

    private final Map<String, Supplier<QueueSystem>> factories = new LinkedHashMap<>();

    /** The built-in systems. */
    static SystemRegistry standard() {
        SystemRegistry r = new SystemRegistry();
        r.register(CeilingSystem.NAME, CeilingSystem::new);
        r.register(Ceiling2System.NAME, Ceiling2System::new);
        r.register(NaiveSkipLockedSystem.NAME, NaiveSkipLockedSystem::new);
        r.register(SHARDQ, ShardQSystem::new);
        r.register(SqlSenderSystem.NAME, () -> new SqlSenderSystem(true));
        r.register(SqlSenderSystem.SEND_NAME, () -> new SqlSenderSystem(false));
        r.register(
                ShardQSystem.ASYNC_NAME,
                () -> ShardQSystem.async(
                        io.shardq.broker.BrokerConfig::builder, ShardQSystem.DEFAULT_IN_FLIGHT_BATCHES));
        return r;
    }

    SystemRegistry register(String name, Supplier<QueueSystem> factory) {
        factories.put(name, factory);
        return this;
    }

    boolean isRegistered(String name) {
        return factories.containsKey(name);
    }

    /** Known but not implemented yet: asking for it is not an error. */
    boolean isComing(String name) {
        return COMING.contains(name) && !isRegistered(name);
    }

    /** Every name accepted by {@code --systems}. */
    List<String> knownNames() {
        List<String> names = new ArrayList<>(factories.keySet());
        for (String n : DEFAULT) {
            if (!names.contains(n)) {
                names.add(n);
            }
        }
        return names;
    }

    /** A new instance of a registered system. */
    QueueSystem create(String name) {
        Supplier<QueueSystem> f = factories.get(name);
        if (f == null) {
            throw new IllegalArgumentException(
                    "system \"" + name + "\" is not registered: expected one of " + factories.keySet());
        }
        return f.get();
    }
}

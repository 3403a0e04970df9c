package io.shardq.broker;

import io.shardq.broker.catalog.DestinationInfo;
import io.shardq.broker.catalog.Names;
import io.shardq.broker.catalog.TemporaryDestinations;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * Temporary destinations of one instance ({@link Broker#temporaries()}): made for a connection
 * of this instance, dropped by it, by the instance's close, or by the maintenance leader once the
 * instance is dead. Who may consume from one is for the caller to enforce (the JMS layer: only
 * the owning connection).
 */
public final class Temporaries {
    private final TemporaryDestinations store;
    private final Admin admin;
    private final Consumer<String> forget;
    private final Runnable checkOpen;

    Temporaries(TemporaryDestinations store, Admin admin, Consumer<String> forget, Runnable checkOpen) {
        this.store = store;
        this.admin = admin;
        this.forget = forget;
        this.checkOpen = checkOpen;
    }

    /**
     * Creates a temporary destination ({@code queue} or {@code topic}) owned by the connection
     * {@code owner} of this instance: a generated name beginning with {@code tmp.}, one shard. Any
     * instance may send to it by name.
     */
    public DestinationInfo create(String kind, UUID owner) {
        checkOpen.run();
        if (!"queue".equals(kind) && !"topic".equals(kind)) {
            throw new ShardQException(
                    ErrorKind.INVALID_ARGUMENT, "kind \"" + kind + "\" is invalid: expected queue or topic");
        }
        return admin.require(store.create(kind, Objects.requireNonNull(owner, "owner")));
    }

    /**
     * Drops the temporary destination {@code name} and its messages if the connection {@code
     * owner} owns it; fails with {@link ErrorKind#SECURITY} when another connection does, {@link
     * ErrorKind#ILLEGAL_STATE} when it is not temporary, {@link ErrorKind#UNKNOWN_DESTINATION} when
     * it does not exist. Waits for a sender's open transaction on it to end.
     */
    public void drop(String name, UUID owner) {
        checkOpen.run();
        Names.checkDestination(name);
        store.drop(name, Objects.requireNonNull(owner, "owner"), 0);
        forget.accept(name);
    }

    /** The connection owning the temporary destination {@code name}; empty when it is not one (or gone). */
    public Optional<UUID> owner(String name) {
        checkOpen.run();
        return store.owner(Names.checkDestination(name));
    }
}

package io.shardq.broker.message;

import io.shardq.broker.catalog.Catalog;

/**
 * A fixture of {@code ApiBoundaryRuleTest}: a class of an API package whose method returns an
 * internal type, as an API mistake would. The engine's main code has none (the rule would catch
 * its callers); this one exists only to show that the rule does.
 */
public final class LeakyApiFixture {
    private LeakyApiFixture() {}

    /** Returns an internal type (always null). */
    public static Catalog catalog() {
        return null;
    }
}

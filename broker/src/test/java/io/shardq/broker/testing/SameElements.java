package io.shardq.broker.testing;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Exactly-once checks over large collections by counting in hash maps: linear in the size, where
 * AssertJ's {@code containsExactlyInAnyOrderElementsOf} removes elements from a list one at a time
 * (quadratic: 535 s for a million messages in {@code RetirementTest}). A failure names how many
 * elements are missing, duplicated and unexpected, with up to {@value #SHOWN} examples of each.
 */
public final class SameElements {
    static final int SHOWN = 20;

    private SameElements() {}

    /**
     * {@code actual} holds each element of {@code expected} as many times as {@code expected} does,
     * and nothing else (a multiset comparison; with distinct expected elements: each exactly once).
     */
    public static <T> void assertSameElements(
            String what, Collection<? extends T> actual, Collection<? extends T> expected) {
        Map<T, Integer> counts = new HashMap<>(Math.max(16, actual.size() * 2));
        for (T t : actual) {
            counts.merge(t, 1, Integer::sum);
        }
        assertCounts(what, counts, expected);
    }

    /**
     * {@code counts} (element to how many times it was seen) has each element of {@code expected}
     * exactly as often as {@code expected} holds it, and no other element.
     */
    public static <T> void assertCounts(
            String what, Map<? extends T, Integer> counts, Collection<? extends T> expected) {
        Map<T, Integer> want = new HashMap<>(Math.max(16, expected.size() * 2));
        for (T t : expected) {
            want.merge(t, 1, Integer::sum);
        }
        List<T> missing = new ArrayList<>();
        List<String> duplicated = new ArrayList<>();
        List<T> unexpected = new ArrayList<>();
        long missingCount = 0;
        long duplicatedCount = 0;
        long unexpectedCount = 0;
        for (Map.Entry<T, Integer> e : want.entrySet()) {
            int got = counts.containsKey(e.getKey()) ? counts.get(e.getKey()) : 0;
            if (got < e.getValue()) {
                missingCount++;
                if (missing.size() < SHOWN) {
                    missing.add(e.getKey());
                }
            } else if (got > e.getValue()) {
                duplicatedCount++;
                if (duplicated.size() < SHOWN) {
                    duplicated.add(e.getKey() + " x" + got);
                }
            }
        }
        for (Map.Entry<? extends T, Integer> e : counts.entrySet()) {
            if (!want.containsKey(e.getKey()) && e.getValue() > 0) {
                unexpectedCount++;
                if (unexpected.size() < SHOWN) {
                    unexpected.add(e.getKey());
                }
            }
        }
        if (missingCount + duplicatedCount + unexpectedCount > 0) {
            throw new AssertionError(what + ": " + expected.size() + " expected, " + counts.size() + " distinct seen; "
                    + missingCount + " missing " + missing + ", " + duplicatedCount + " seen too often " + duplicated
                    + ", " + unexpectedCount + " unexpected " + unexpected);
        }
    }
}

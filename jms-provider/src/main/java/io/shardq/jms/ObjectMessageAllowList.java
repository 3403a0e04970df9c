package io.shardq.jms;

import jakarta.jms.MessageFormatException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectStreamClass;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The classes an {@link jakarta.jms.ObjectMessage} body may contain when it is deserialised.
 * Deserialising arbitrary classes from a message lets whoever can send to a destination run code
 * in the receiver (gadget chains), so ShardQ accepts only what this list allows, and checks every
 * class in the stream (fields, collection elements, superclasses, array components) with a {@link
 * ObjectInputFilter}, not only the top-level one.
 *
 * <p>{@link #defaults()} allows: String, Boolean, Character, the {@code java.lang} Number
 * subclasses, BigInteger and BigDecimal; ArrayList, LinkedList, HashMap, LinkedHashMap, TreeMap,
 * HashSet, LinkedHashSet, TreeSet, {@code Arrays.asList}, the {@code Collections.*} wrappers and the
 * {@code List.of}/{@code Set.of}/{@code Map.of} collections; Date and UUID; arrays of those and of
 * primitives. Add your own classes:
 *
 * <pre>{@code
 * ObjectMessageAllowList list = ObjectMessageAllowList.defaults()
 *         .allowClass("com.acme.Order")
 *         .allowPackage("com.acme.events");
 * // or from a setting: ObjectMessageAllowList.defaults().allow("com.acme.Order, com.acme.events.*")
 * }</pre>
 *
 * <p>Immutable: each {@code allow...} method returns a new list. Thread-safe.
 */
public final class ObjectMessageAllowList {
    private static final ObjectMessageAllowList DEFAULTS = new ObjectMessageAllowList(
            Set.of(
                    "java.lang.Object", // only as an array component: Object itself is not Serializable
                    "java.lang.String",
                    "java.lang.Boolean",
                    "java.lang.Character",
                    "java.lang.Number",
                    "java.lang.Byte",
                    "java.lang.Short",
                    "java.lang.Integer",
                    "java.lang.Long",
                    "java.lang.Float",
                    "java.lang.Double",
                    "java.math.BigInteger",
                    "java.math.BigDecimal",
                    "java.util.ArrayList",
                    "java.util.LinkedList",
                    "java.util.HashMap",
                    "java.util.LinkedHashMap",
                    "java.util.TreeMap",
                    "java.util.HashSet",
                    "java.util.LinkedHashSet",
                    "java.util.TreeSet",
                    "java.util.Arrays$ArrayList",
                    "java.util.CollSer", // the serial form of List.of, Set.of, Map.of
                    "java.util.Map$Entry", // only as an array type: HashMap checks its table size with it
                    "java.util.Date",
                    "java.util.UUID"),
            List.of("java.util.Collections$", "java.util.ImmutableCollections$"),
            false,
            16,
            1_000_000,
            10_000_000);

    private final Set<String> classNames;
    /** Class-name prefixes: {@code com.acme.} for a package and its subpackages. */
    private final List<String> prefixes;

    private final boolean allowAll;
    /** Limits on the stream, checked besides the classes (see {@link #withLimits}). */
    private final int maxDepth;

    private final long maxReferences;
    private final long maxArrayLength;

    private ObjectMessageAllowList(
            Set<String> classNames,
            List<String> prefixes,
            boolean allowAll,
            int maxDepth,
            long maxReferences,
            long maxArrayLength) {
        this.classNames = classNames;
        this.prefixes = prefixes;
        this.allowAll = allowAll;
        this.maxDepth = maxDepth;
        this.maxReferences = maxReferences;
        this.maxArrayLength = maxArrayLength;
    }

    private ObjectMessageAllowList with(Set<String> names, List<String> prefixList, boolean all) {
        return new ObjectMessageAllowList(names, prefixList, all, maxDepth, maxReferences, maxArrayLength);
    }

    /**
     * This list with other limits on a body's stream, which apply whatever the classes (even with
     * {@code *}): the nesting depth of objects (default 16: nested collections cost time that grows
     * about 3.7-fold per two levels when they are hashed), the number of objects and references
     * (default 1,000,000) and the length of any one array (default 10,000,000; never more than the
     * body has bytes, whatever is set). A body beyond a limit is refused with {@link
     * MessageFormatException} naming it.
     */
    public ObjectMessageAllowList withLimits(int maxDepth, long maxReferences, long maxArrayLength) {
        if (maxDepth < 1 || maxReferences < 1 || maxArrayLength < 0) {
            throw new IllegalArgumentException("limits must be positive: depth " + maxDepth + ", references "
                    + maxReferences + ", array length " + maxArrayLength);
        }
        return new ObjectMessageAllowList(classNames, prefixes, allowAll, maxDepth, maxReferences, maxArrayLength);
    }

    /** The JDK value and collection classes listed above, nothing else. */
    public static ObjectMessageAllowList defaults() {
        return DEFAULTS;
    }

    /** This list plus one class, by its binary name ({@code com.acme.Order$Line} for a nested one). */
    public ObjectMessageAllowList allowClass(String className) {
        if (className == null || className.isBlank()) {
            throw new IllegalArgumentException("class name must not be null or blank");
        }
        Set<String> names = new LinkedHashSet<>(classNames);
        names.add(className.strip());
        return with(Collections.unmodifiableSet(names), prefixes, allowAll);
    }

    /** This list plus one class. */
    public ObjectMessageAllowList allowClass(Class<?> type) {
        return allowClass(type.getName());
    }

    /**
     * This list plus every class in a package and its subpackages: {@code com.acme} (also written
     * {@code com.acme.} or {@code com.acme.*}) allows {@code com.acme.Order} and {@code
     * com.acme.events.Shipped}, not {@code com.acmecorp.X}.
     */
    public ObjectMessageAllowList allowPackage(String packageName) {
        String p = packageName == null ? "" : packageName.strip();
        if (p.endsWith("*")) {
            p = p.substring(0, p.length() - 1);
        }
        if (p.endsWith(".")) {
            p = p.substring(0, p.length() - 1);
        }
        if (p.isEmpty()) {
            throw new IllegalArgumentException(
                    "package name \"" + packageName + "\" is invalid: expected e.g. com.acme");
        }
        return withPrefix(p + '.');
    }

    /**
     * This list plus entries from a comma-separated setting: a class name ({@code com.acme.Order}),
     * a prefix ending in {@code *} ({@code com.acme.*} for a package and its subpackages, {@code
     * com.acme.Order$*} for the nested classes of one class), or {@code *} alone to allow every
     * class, which turns the protection off.
     */
    public ObjectMessageAllowList allow(String entries) {
        ObjectMessageAllowList list = this;
        for (String entry : entries.split(",")) {
            String e = entry.strip();
            if (e.equals("*")) {
                list = list.with(list.classNames, list.prefixes, true);
            } else if (e.endsWith(".*")) {
                list = list.allowPackage(e);
            } else if (e.endsWith("*")) {
                list = list.withPrefix(e.substring(0, e.length() - 1));
            } else if (!e.isEmpty()) {
                list = list.allowClass(e);
            }
        }
        return list;
    }

    private ObjectMessageAllowList withPrefix(String prefix) {
        List<String> p = new ArrayList<>(prefixes);
        if (!p.contains(prefix)) {
            p.add(prefix);
        }
        return with(classNames, List.copyOf(p), allowAll);
    }

    /** Whether a class may be deserialised; an array when its component type may, primitives always. */
    public boolean allows(Class<?> type) {
        Class<?> c = type;
        while (c.isArray()) {
            c = c.getComponentType();
        }
        return c.isPrimitive() || allows(c.getName());
    }

    /** Whether a class, by binary name, may be deserialised. */
    public boolean allows(String className) {
        if (allowAll || classNames.contains(className)) {
            return true;
        }
        for (String prefix : prefixes) {
            if (className.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Deserialises an ObjectMessage body, refusing any class this list does not allow.
     *
     * @return the object, or null for an empty body
     * @throws MessageFormatException naming the refused class and how to allow it, or when the bytes
     *     are not a serialised object or a class cannot be found
     */
    Object deserialize(byte[] bytes) throws MessageFormatException {
        if (bytes.length == 0) {
            return null;
        }
        Filter filter = new Filter(bytes.length);
        try (ObjectInputStream in = new ContextLoaderObjectInputStream(new ByteArrayInputStream(bytes))) {
            in.setObjectInputFilter(filter);
            return in.readObject();
        } catch (IOException | ClassNotFoundException | RuntimeException e) {
            if (filter.limit != null) {
                throw failure("ObjectMessage body refused: " + filter.limit, e);
            }
            if (filter.refused != null) {
                throw failure(refusal(filter.refused), e);
            }
            if (e instanceof ClassNotFoundException) {
                throw failure(
                        "ObjectMessage body cannot be deserialised: class " + e.getMessage()
                                + " not found (looked up with the thread's context class loader)",
                        e);
            }
            throw failure("ObjectMessage body cannot be deserialised: " + e, e);
        }
    }

    private static String refusal(String className) {
        int dot = className.lastIndexOf('.');
        String hint = dot < 0
                ? ".allowClass(\"" + className + "\")"
                : ".allowClass(\"" + className + "\") or .allowPackage(\"" + className.substring(0, dot) + "\")";
        return "ObjectMessage body refused: class " + className
                + " is not on the ObjectMessage allow-list (by default only java.lang and java.math values,"
                + " java.util collections, Date and UUID). To accept it, add it to the allow-list:"
                + " ObjectMessageAllowList.defaults()" + hint;
    }

    private static MessageFormatException failure(String message, Exception cause) {
        MessageFormatException e = new MessageFormatException(message);
        e.initCause(cause);
        e.setLinkedException(cause);
        return e;
    }

    @Override
    public String toString() {
        return allowAll ? "ObjectMessageAllowList[*]" : "ObjectMessageAllowList" + classNames + prefixes;
    }

    /** Checks each class in the stream and remembers the first one refused, for the message. */
    private final class Filter implements ObjectInputFilter {
        private final long bodyBytes;
        private String refused;
        /** The first limit passed, described. */
        private String limit;

        Filter(long bodyBytes) {
            this.bodyBytes = bodyBytes;
        }

        @Override
        public Status checkInput(FilterInfo info) {
            if (info.depth() > maxDepth) {
                return over("objects nest " + info.depth() + " deep, the limit is " + maxDepth
                        + " (ObjectMessageAllowList.withLimits)");
            }
            if (info.references() > maxReferences) {
                return over("more than " + maxReferences + " objects and references"
                        + " (ObjectMessageAllowList.withLimits)");
            }
            long arrayLimit = Math.min(maxArrayLength, bodyBytes);
            if (info.arrayLength() > arrayLimit) {
                return over("an array of " + info.arrayLength() + " elements, the limit is " + arrayLimit
                        + (arrayLimit == bodyBytes
                                ? " (the body's size in bytes)"
                                : " (ObjectMessageAllowList.withLimits)"));
            }
            Class<?> c = info.serialClass();
            if (c == null) {
                return Status.UNDECIDED;
            }
            if (allows(c)) {
                return Status.ALLOWED;
            }
            if (refused == null) {
                Class<?> component = c;
                while (component.isArray()) {
                    component = component.getComponentType();
                }
                refused = component.getName();
            }
            return Status.REJECTED;
        }

        private Status over(String what) {
            if (limit == null) {
                limit = what;
            }
            return Status.REJECTED;
        }
    }

    /** Resolves classes with the thread's context class loader first, as application servers need. */
    private static final class ContextLoaderObjectInputStream extends ObjectInputStream {
        ContextLoaderObjectInputStream(InputStream in) throws IOException {
            super(in);
        }

        @Override
        protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            if (loader != null) {
                try {
                    return Class.forName(desc.getName(), false, loader);
                } catch (ClassNotFoundException e) {
                    // not visible there: fall back to the default lookup below
                }
            }
            return super.resolveClass(desc);
        }
    }
}

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
 * // or as ObjectInputFilter patterns: ObjectMessageAllowList.defaults().allowPattern("com.acme.Order;com.acme.events.**")
 * }</pre>
 *
 * <p>Without code, the setting {@code shardq.jms.object-message.allow} (system property, {@code
 * SHARDQ_JMS_OBJECT_MESSAGE_ALLOW}, a JNDI factory's {@code connectionFactory.NAME.shardq.jms.object-message.allow},
 * or a Spring Boot property) adds {@link #allowPattern patterns} to {@link #defaults()} for a
 * factory. From ActiveMQ Artemis: {@code deserializationAllowList=com.acme,org.example.Event}
 * (package prefixes and class names, comma-separated) is {@code com.acme.**;org.example.Event};
 * {@code deserializationDenyList=com.bad} is {@code !com.bad.**} written first; Artemis's {@code *}
 * is {@code *}.
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
            List.of(),
            16,
            1_000_000,
            10_000_000);

    private final Set<String> classNames;
    /** Class-name prefixes: {@code com.acme.} for a package and its subpackages. */
    private final List<String> prefixes;

    private final boolean allowAll;
    /**
     * Filters from {@link #allowPattern} ({@code ObjectInputFilter} syntax), asked first, in order:
     * the first that allows or rejects a class decides; a class none decides is judged by the rest.
     */
    private final List<ObjectInputFilter> patterns;
    /** Limits on the stream, checked besides the classes (see {@link #withLimits}). */
    private final int maxDepth;

    private final long maxReferences;
    private final long maxArrayLength;

    private ObjectMessageAllowList(
            Set<String> classNames,
            List<String> prefixes,
            boolean allowAll,
            List<ObjectInputFilter> patterns,
            int maxDepth,
            long maxReferences,
            long maxArrayLength) {
        this.classNames = classNames;
        this.prefixes = prefixes;
        this.allowAll = allowAll;
        this.patterns = patterns;
        this.maxDepth = maxDepth;
        this.maxReferences = maxReferences;
        this.maxArrayLength = maxArrayLength;
    }

    private ObjectMessageAllowList with(Set<String> names, List<String> prefixList, boolean all) {
        return new ObjectMessageAllowList(names, prefixList, all, patterns, maxDepth, maxReferences, maxArrayLength);
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
        return new ObjectMessageAllowList(
                classNames, prefixes, allowAll, patterns, maxDepth, maxReferences, maxArrayLength);
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

    /**
     * This list plus a filter written as {@link ObjectInputFilter.Config#createFilter} reads it,
     * the syntax of {@code jdk.serialFilter} and of the setting {@code
     * shardq.jms.object-message.allow}: patterns separated by {@code ;}, each a class name ({@code
     * com.acme.Order}), a package ({@code com.acme.*}, its classes only), a package and its
     * subpackages ({@code com.acme.**}), a prefix ({@code com.acme.Order*}), {@code *} for every
     * class, a pattern after {@code !} to refuse what it matches, or a limit ({@code maxdepth=},
     * {@code maxrefs=}, {@code maxarray=}, {@code maxbytes=}). The first pattern that matches a
     * class decides, before the built-in list: {@code !java.util.HashMap} refuses a default class.
     * A class no pattern matches is judged by the rest of this list. Null or blank adds nothing.
     *
     * @throws IllegalArgumentException naming the pattern when the JDK cannot read it
     */
    public ObjectMessageAllowList allowPattern(String pattern) {
        if (pattern == null || pattern.isBlank()) {
            return this;
        }
        ObjectInputFilter f;
        try {
            f = ObjectInputFilter.Config.createFilter(pattern.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "ObjectMessage allow-list pattern \"" + io.shardq.broker.message.Texts.cut(pattern, 200)
                            + "\" is invalid (" + e.getMessage() + "): expected java.io.ObjectInputFilter patterns"
                            + " separated by ; such as com.acme.Order;com.acme.events.*;com.acme.**",
                    e);
        }
        List<ObjectInputFilter> p = new ArrayList<>(patterns);
        p.add(f);
        return new ObjectMessageAllowList(
                classNames, prefixes, allowAll, List.copyOf(p), maxDepth, maxReferences, maxArrayLength);
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
        if (c.isPrimitive()) {
            return true;
        }
        ObjectInputFilter.Status byPattern = byPatterns(new ClassOnly(c));
        if (byPattern != ObjectInputFilter.Status.UNDECIDED) {
            return byPattern == ObjectInputFilter.Status.ALLOWED;
        }
        return allowsByName(c.getName());
    }

    /** What the first pattern filter that decides says, UNDECIDED when none does. */
    private ObjectInputFilter.Status byPatterns(ObjectInputFilter.FilterInfo info) {
        for (ObjectInputFilter f : patterns) {
            ObjectInputFilter.Status s = f.checkInput(info);
            if (s != ObjectInputFilter.Status.UNDECIDED) {
                return s;
            }
        }
        return ObjectInputFilter.Status.UNDECIDED;
    }

    /** A class alone, for asking the pattern filters about it outside a stream. */
    private record ClassOnly(Class<?> serialClass) implements ObjectInputFilter.FilterInfo {
        @Override
        public long arrayLength() {
            return -1;
        }

        @Override
        public long depth() {
            return 1;
        }

        @Override
        public long references() {
            return 1;
        }

        @Override
        public long streamBytes() {
            return 0;
        }
    }

    /**
     * Whether a class, by binary name, may be deserialised (with patterns, the class is looked up
     * with the thread's context class loader to ask them; one not found is judged without them).
     */
    public boolean allows(String className) {
        if (!patterns.isEmpty()) {
            try {
                ClassLoader loader = Thread.currentThread().getContextClassLoader();
                return allows(Class.forName(
                        className, false, loader == null ? getClass().getClassLoader() : loader));
            } catch (ClassNotFoundException | LinkageError e) {
                // not loadable here: the built-in list and the allow... entries decide
            }
        }
        return allowsByName(className);
    }

    private boolean allowsByName(String className) {
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

    /** What {@link #defaults()} allows, named exactly (the refusal says it). */
    static final String DEFAULTS_DESCRIBED = "String, Boolean, Character, Number and its java.lang subclasses,"
            + " BigInteger, BigDecimal, Date, UUID, ArrayList, LinkedList, HashMap, LinkedHashMap, TreeMap, HashSet,"
            + " LinkedHashSet, TreeSet, the List.of/Set.of/Map.of, Arrays.asList and Collections.* collections, and"
            + " arrays of these and of primitives";

    private static String refusal(String className) {
        int dot = className.lastIndexOf('.');
        String pattern = dot < 0 ? className : className + " or " + className.substring(0, dot) + ".*";
        String hint = dot < 0
                ? ".allowClass(\"" + className + "\")"
                : ".allowClass(\"" + className + "\") or .allowPackage(\"" + className.substring(0, dot) + "\")";
        return "ObjectMessage body refused: class " + className
                + " is not on the ObjectMessage allow-list (by default only " + DEFAULTS_DESCRIBED
                + "). To accept it, set shardq.jms.object-message.allow=" + pattern
                + " (java.io.ObjectInputFilter patterns, separated by ;) or, in code, ObjectMessageAllowList.defaults()"
                + hint;
    }

    private static MessageFormatException failure(String message, Exception cause) {
        MessageFormatException e = new MessageFormatException(message);
        e.initCause(cause);
        e.setLinkedException(cause);
        return e;
    }

    @Override
    public String toString() {
        return allowAll
                ? "ObjectMessageAllowList[*]"
                : "ObjectMessageAllowList" + classNames + prefixes + (patterns.isEmpty() ? "" : patterns);
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
                // a limit written in a pattern (maxdepth=, maxrefs=, maxbytes=) applies too
                return byPatterns(info) == Status.REJECTED
                        ? over("a limit of the allow-list's patterns (shardq.jms.object-message.allow)")
                        : Status.UNDECIDED;
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

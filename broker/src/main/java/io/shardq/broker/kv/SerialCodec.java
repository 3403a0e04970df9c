package io.shardq.broker.kv;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InvalidClassException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.List;
import java.util.Set;

/**
 * {@link Codec#serialized}: Java serialisation behind an allow-list {@link ObjectInputFilter}.
 * The filter decides each class before it is instantiated and remembers why it refused, so the
 * error names the class (the JDK's own message says only "REJECTED").
 */
final class SerialCodec<T> implements Codec<T> {
    /** Always allowed: what a plain value is built of. */
    private static final Set<String> BASICS = Set.of(
            "java.lang.Object", // Object[] inside collections (a bare Object is not serialisable)
            "java.lang.String",
            "java.lang.Number",
            "java.lang.Integer",
            "java.lang.Long",
            "java.lang.Short",
            "java.lang.Byte",
            "java.lang.Double",
            "java.lang.Float",
            "java.lang.Boolean",
            "java.lang.Character",
            "java.lang.Enum",
            "java.math.BigDecimal",
            "java.math.BigInteger",
            "java.util.ArrayList",
            "java.util.HashMap",
            "java.util.LinkedHashMap",
            "java.util.HashSet",
            "java.util.LinkedHashSet",
            "java.util.TreeMap",
            "java.util.ImmutableCollections$CollSer",
            "java.time.Ser");

    private final Class<T> type;
    private final List<String> allowed;
    private final SerialLimits limits;

    SerialCodec(Class<T> type, List<String> allowed, SerialLimits limits) {
        this.type = type;
        this.allowed = List.copyOf(allowed);
        this.limits = limits;
    }

    @Override
    public byte[] encode(T value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ObjectOutputStream o = new ObjectOutputStream(out)) {
            o.writeObject(value);
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "cannot serialise " + value.getClass().getName() + ": " + e, e);
        }
        return out.toByteArray();
    }

    @Override
    public T decode(byte[] bytes) {
        Filter filter = new Filter();
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes))) {
            in.setObjectInputFilter(filter);
            Object o = in.readObject();
            if (!type.isInstance(o)) {
                throw new IllegalArgumentException(
                        "the serialised value is a " + o.getClass().getName() + ", not a " + type.getName());
            }
            return type.cast(o);
        } catch (InvalidClassException e) {
            throw new IllegalArgumentException(filter.refusal != null ? filter.refusal : e.getMessage(), e);
        } catch (IOException | ClassNotFoundException e) {
            throw new IllegalArgumentException("cannot deserialise a " + type.getName() + ": " + e, e);
        }
    }

    @Override
    public String describe() {
        return "serialised " + type.getSimpleName();
    }

    boolean allows(String className) {
        if (BASICS.contains(className) || className.equals(type.getName())) {
            return true;
        }
        for (String p : allowed) {
            if (p.endsWith(".**")) {
                if (className.startsWith(p.substring(0, p.length() - 2))) {
                    return true;
                }
            } else if (p.endsWith(".*")) {
                String pkg = p.substring(0, p.length() - 1);
                if (className.startsWith(pkg) && className.indexOf('.', pkg.length()) < 0) {
                    return true;
                }
            } else if (p.equals(className)) {
                return true;
            }
        }
        return false;
    }

    private final class Filter implements ObjectInputFilter {
        String refusal;

        @Override
        public Status checkInput(FilterInfo info) {
            if (info.depth() > limits.maxDepth()) {
                return refuse("the serialised value is nested deeper than " + limits.maxDepth() + " levels");
            }
            if (info.references() > limits.maxReferences()) {
                return refuse("the serialised value has more than " + limits.maxReferences() + " references");
            }
            if (info.streamBytes() > limits.maxBytes()) {
                return refuse("the serialised value is longer than " + limits.maxBytes() + " bytes");
            }
            Class<?> c = info.serialClass();
            if (c == null) {
                return Status.UNDECIDED;
            }
            while (c.isArray()) {
                c = c.getComponentType();
            }
            if (c.isPrimitive() || allows(c.getName())) {
                return Status.ALLOWED;
            }
            return refuse("class " + c.getName() + " is not allowed in a serialised " + type.getName()
                    + " (allowed: " + type.getName() + (allowed.isEmpty() ? "" : ", " + String.join(", ", allowed))
                    + " and java.lang/java.util basics)");
        }

        private Status refuse(String why) {
            if (refusal == null) {
                refusal = why;
            }
            return Status.REJECTED;
        }
    }
}

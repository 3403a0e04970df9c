package io.shardq.jms.jndi;

import io.shardq.broker.ShardQException;
import io.shardq.broker.catalog.Names;
import io.shardq.jms.ShardQQueue;
import io.shardq.jms.ShardQTopic;
import java.util.Collections;
import java.util.Hashtable;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Properties;
import java.util.function.Function;
import javax.naming.Binding;
import javax.naming.CompositeName;
import javax.naming.Context;
import javax.naming.InvalidNameException;
import javax.naming.Name;
import javax.naming.NameClassPair;
import javax.naming.NameNotFoundException;
import javax.naming.NameParser;
import javax.naming.NamingEnumeration;
import javax.naming.NamingException;
import javax.naming.OperationNotSupportedException;

/**
 * The flat, read-only context of {@link ShardQInitialContextFactory}: names are whole strings
 * ({@code jms/orders} is one name), plus {@code dynamicQueues/X} and {@code dynamicTopics/X}.
 */
final class ReadOnlyContext implements Context {
    static final String DYNAMIC_QUEUES = "dynamicQueues/";
    static final String DYNAMIC_TOPICS = "dynamicTopics/";

    private final Map<String, Object> bindings;
    private final Hashtable<Object, Object> environment;

    ReadOnlyContext(Map<String, Object> bindings, Hashtable<?, ?> environment) {
        this.bindings = Collections.unmodifiableMap(bindings);
        this.environment = new Hashtable<>(environment);
    }

    @Override
    public Object lookup(String name) throws NamingException {
        if (name == null || name.isEmpty()) {
            return new ReadOnlyContext(bindings, environment);
        }
        Object bound = bindings.get(name);
        if (bound != null) {
            return bound;
        }
        if (name.startsWith(DYNAMIC_QUEUES)) {
            return new ShardQQueue(dynamic(name, DYNAMIC_QUEUES));
        }
        if (name.startsWith(DYNAMIC_TOPICS)) {
            return new ShardQTopic(dynamic(name, DYNAMIC_TOPICS));
        }
        NameNotFoundException e = new NameNotFoundException("\"" + name + "\" is not bound; bound are "
                + bindings.keySet() + " (connectionFactory.NAME, queue.NAME and topic.NAME in jndi.properties),"
                + " and dynamicQueues/NAME, dynamicTopics/NAME for any destination");
        e.setRemainingName(new CompositeName().add(name));
        throw e;
    }

    private static String dynamic(String name, String prefix) throws NamingException {
        try {
            return Names.checkDestination(name.substring(prefix.length()));
        } catch (ShardQException e) {
            throw new InvalidNameException(name + ": " + e.getMessage());
        }
    }

    @Override
    public Object lookup(Name name) throws NamingException {
        return lookup(name.toString());
    }

    @Override
    public Object lookupLink(String name) throws NamingException {
        return lookup(name);
    }

    @Override
    public Object lookupLink(Name name) throws NamingException {
        return lookup(name);
    }

    @Override
    public NamingEnumeration<NameClassPair> list(String name) throws NamingException {
        requireRoot(name);
        return enumerate(
                e -> new NameClassPair(e.getKey(), e.getValue().getClass().getName()));
    }

    @Override
    public NamingEnumeration<NameClassPair> list(Name name) throws NamingException {
        return list(name.toString());
    }

    @Override
    public NamingEnumeration<Binding> listBindings(String name) throws NamingException {
        requireRoot(name);
        return enumerate(e -> new Binding(e.getKey(), e.getValue()));
    }

    @Override
    public NamingEnumeration<Binding> listBindings(Name name) throws NamingException {
        return listBindings(name.toString());
    }

    private void requireRoot(String name) throws NamingException {
        if (name != null && !name.isEmpty()) {
            throw new OperationNotSupportedException(
                    "the ShardQ context is flat: list \"\" (the whole context), not \"" + name + "\"");
        }
    }

    private <T> NamingEnumeration<T> enumerate(Function<Map.Entry<String, Object>, T> f) {
        Iterator<Map.Entry<String, Object>> it = bindings.entrySet().iterator();
        return new NamingEnumeration<>() {
            @Override
            public T next() {
                return nextElement();
            }

            @Override
            public boolean hasMore() {
                return it.hasNext();
            }

            @Override
            public void close() {}

            @Override
            public boolean hasMoreElements() {
                return it.hasNext();
            }

            @Override
            public T nextElement() {
                if (!it.hasNext()) {
                    throw new NoSuchElementException();
                }
                return f.apply(it.next());
            }
        };
    }

    private static OperationNotSupportedException readOnly(String what) {
        return new OperationNotSupportedException("the ShardQ JNDI context is read-only: cannot " + what
                + "; configure it with connectionFactory.NAME, queue.NAME and topic.NAME in jndi.properties");
    }

    @Override
    public void bind(Name name, Object obj) throws NamingException {
        bind(name.toString(), obj);
    }

    @Override
    public void bind(String name, Object obj) throws NamingException {
        throw readOnly("bind " + name);
    }

    @Override
    public void rebind(Name name, Object obj) throws NamingException {
        rebind(name.toString(), obj);
    }

    @Override
    public void rebind(String name, Object obj) throws NamingException {
        throw readOnly("rebind " + name);
    }

    @Override
    public void unbind(Name name) throws NamingException {
        unbind(name.toString());
    }

    @Override
    public void unbind(String name) throws NamingException {
        throw readOnly("unbind " + name);
    }

    @Override
    public void rename(Name oldName, Name newName) throws NamingException {
        rename(oldName.toString(), newName.toString());
    }

    @Override
    public void rename(String oldName, String newName) throws NamingException {
        throw readOnly("rename " + oldName);
    }

    @Override
    public void destroySubcontext(Name name) throws NamingException {
        destroySubcontext(name.toString());
    }

    @Override
    public void destroySubcontext(String name) throws NamingException {
        throw readOnly("destroy " + name);
    }

    @Override
    public Context createSubcontext(Name name) throws NamingException {
        return createSubcontext(name.toString());
    }

    @Override
    public Context createSubcontext(String name) throws NamingException {
        throw readOnly("create " + name);
    }

    @Override
    public NameParser getNameParser(Name name) {
        return CompositeName::new;
    }

    @Override
    public NameParser getNameParser(String name) {
        return CompositeName::new;
    }

    @Override
    public Name composeName(Name name, Name prefix) throws NamingException {
        return ((Name) prefix.clone()).addAll(name);
    }

    @Override
    public String composeName(String name, String prefix) {
        return prefix.isEmpty() ? name : prefix + "/" + name;
    }

    @Override
    public Object addToEnvironment(String propName, Object propVal) {
        return environment.put(propName, propVal);
    }

    @Override
    public Object removeFromEnvironment(String propName) {
        return environment.remove(propName);
    }

    @Override
    public Hashtable<?, ?> getEnvironment() {
        Properties copy = new Properties();
        copy.putAll(environment);
        return copy;
    }

    /** Nothing to release: the connection factories belong to whoever looked them up. */
    @Override
    public void close() {}

    @Override
    public String getNameInNamespace() {
        return "";
    }
}

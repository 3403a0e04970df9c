package io.shardq.broker;

/** What went wrong, in terms a caller can act on; the JMS layer maps each to an exception type. */
public enum ErrorKind {
    /** A setting has a value that cannot be used. */
    CONFIGURATION,
    /** The database cannot be reached, or the connection was lost. */
    CONNECTION,
    /**
     * The connection was lost while a commit was on its way: PostgreSQL may or may not have
     * committed it (see "In-doubt commits" in docs/design/faults.md).
     */
    IN_DOUBT,
    /** A name (queue, topic, subscription, cache) is not acceptable. */
    INVALID_NAME,
    /** The named destination does not exist. */
    UNKNOWN_DESTINATION,
    /** The destination exists already. */
    DESTINATION_EXISTS,
    /** The named key/value cache does not exist. */
    UNKNOWN_CACHE,
    /** The key/value cache exists already. */
    CACHE_EXISTS,
    /** A selector expression cannot be parsed. */
    INVALID_SELECTOR,
    /** An operation is not allowed in the object's current state (closed, stopped, ...). */
    ILLEGAL_STATE,
    /** A transaction was rolled back by the database (serialisation, deadlock, lost lease). */
    ROLLED_BACK,
    /** A value is out of range or malformed. */
    INVALID_ARGUMENT,
    /** PostgreSQL refused a login (wrong password, unknown role) or an operation's privileges. */
    SECURITY,
    /** A JMS client id is held by another connection, here or on another instance. */
    CLIENT_ID_IN_USE,
    /** A bounded resource is exhausted (the connection pool, non-persistent memory). */
    RESOURCE_EXHAUSTED,
    /** Anything else the database refused. */
    DATABASE
}

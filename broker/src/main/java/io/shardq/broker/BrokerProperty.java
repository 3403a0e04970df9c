package io.shardq.broker;

/**
 * Every ShardQ setting: its property key, environment variable, default and meaning. The
 * README's configuration table is checked against this enum by a test.
 *
 * <p>Precedence, highest first: a value passed in code ({@link BrokerConfig.Builder#set}), a
 * JVM system property with the key, an environment variable with the env name, the default.
 */
public enum BrokerProperty {
    JDBC_URL(
            "shardq.jdbc.url",
            "SHARDQ_JDBC_URL",
            "",
            "JDBC URL of the PostgreSQL server; empty starts the embedded PostgreSQL"),
    JDBC_USER("shardq.jdbc.user", "SHARDQ_USER", "postgres", "database user"),
    JDBC_PASSWORD("shardq.jdbc.password", "SHARDQ_PASSWORD", "", "database password (never logged)"),
    POOL_SIZE(
            "shardq.pool.size",
            "SHARDQ_POOL_SIZE",
            "32",
            "maximum JDBC connections per connection factory; a session holds one only while a statement "
                    + "or commit runs (or while its transaction is shared with application SQL)"),
    POOL_TIMEOUT_MS(
            "shardq.pool.timeout-ms",
            "SHARDQ_POOL_TIMEOUT_MS",
            "10000",
            "how long an operation waits for a free pooled connection before failing with a message that "
                    + "names shardq.pool.size"),
    FAILOVER_WAIT_MS(
            "shardq.failover.wait-ms",
            "SHARDQ_FAILOVER_WAIT_MS",
            "30000",
            "how long an operation waits, retrying with back-off, for PostgreSQL to accept a connection to a "
                    + "writable primary (restarting, failing over, in recovery) before failing with an error that "
                    + "names what happened; at least shardq.pool.timeout-ms"),
    CONNECT_TIMEOUT_MS(
            "shardq.jdbc.connect-timeout-ms",
            "SHARDQ_CONNECT_TIMEOUT_MS",
            "10000",
            "how long to wait for a database connection before failing"),
    JDBC_INIT_SQL(
            "shardq.jdbc.init-sql",
            "SHARDQ_JDBC_INIT_SQL",
            "",
            "SQL run on every new pooled connection, e.g. set synchronous_commit = off"),
    MIGRATE_ON_START(
            "shardq.migrate-on-start",
            "SHARDQ_MIGRATE_ON_START",
            "true",
            "apply the shardq schema migrations when a broker starts"),
    EMBEDDED_DATA_DIR(
            "shardq.embedded.data-dir",
            "SHARDQ_EMBEDDED_DATA_DIR",
            "~/.shardq/pgdata",
            "data directory of the embedded PostgreSQL (kept across restarts); ~ is $HOME, and $SHARDQ_HOME,"
                    + " when set, stands for ~/.shardq"),
    EMBEDDED_PORT(
            "shardq.embedded.port",
            "SHARDQ_EMBEDDED_PORT",
            "0",
            "port of the embedded PostgreSQL on 127.0.0.1; 0 picks a free one"),
    EMBEDDED_DURABLE(
            "shardq.embedded.durable",
            "SHARDQ_EMBEDDED_DURABLE",
            "true",
            "run the embedded PostgreSQL with fsync=on and synchronous_commit=on; false trades "
                    + "durability for speed"),
    AUTO_CREATE_DESTINATIONS(
            "shardq.auto-create-destinations",
            "SHARDQ_AUTO_CREATE_DESTINATIONS",
            "true",
            "create a queue with the default settings the first time it is used"),
    DEFAULT_SHARDS("shardq.default.shards", "SHARDQ_DEFAULT_SHARDS", "4", "shards of an auto-created queue"),
    CACHE_MAX_BYTES(
            "shardq.cache.max-bytes",
            "SHARDQ_CACHE_MAX_BYTES",
            "67108864",
            "bound of the per-instance message cache in bytes"),
    CACHE_LARGE_PAYLOAD_BYTES(
            "shardq.cache.large-payload-bytes",
            "SHARDQ_CACHE_LARGE_PAYLOAD_BYTES",
            "65536",
            "bodies larger than this are not cached or read ahead; a consumer reads one when it delivers the message"),
    READ_AHEAD(
            "shardq.dequeue.read-ahead",
            "SHARDQ_DEQUEUE_READ_AHEAD",
            "500",
            "messages read in one SELECT when the cache misses"),
    READ_AHEAD_MAX_BYTES(
            "shardq.dequeue.read-ahead-max-bytes",
            "SHARDQ_DEQUEUE_READ_AHEAD_MAX_BYTES",
            "4194304",
            "bytes (headers and small bodies) one read-ahead SELECT returns at most; large bodies are never read ahead"),
    PREFETCH(
            "shardq.dequeue.prefetch",
            "SHARDQ_DEQUEUE_PREFETCH",
            "10",
            "messages a transacted or client-acknowledge session takes from a shard at once; other sessions "
                    + "take the next ones of the same shard in parallel"),
    PRIORITY_WINDOW(
            "shardq.dequeue.priority-window",
            "SHARDQ_DEQUEUE_PRIORITY_WINDOW",
            "1000",
            "messages of a shard, from its oldest untaken one, among which the highest priority is delivered "
                    + "first (0: plain send order, priorities kept but not used)"),
    NON_PERSISTENT_MAX_BYTES(
            "shardq.non-persistent.max-bytes",
            "SHARDQ_NON_PERSISTENT_MAX_BYTES",
            "33554432",
            "bound of the non-persistent messages an instance holds in memory; a send beyond it fails with "
                    + "ResourceAllocationException"),
    POLL_MAX_MS(
            "shardq.dequeue.poll-max-ms",
            "SHARDQ_DEQUEUE_POLL_MAX_MS",
            "1000",
            "longest interval of the fallback poll while consumers wait (wake-ups normally come by NOTIFY)"),
    FLOW_MAX_UNTAKEN(
            "shardq.flow.max-untaken",
            "SHARDQ_FLOW_MAX_UNTAKEN",
            "0",
            "producer flow control for queues, off when 0: while this instance's consumers of a queue are all at "
                    + "work and more committed messages than this (never less than two prefetch ranges per open "
                    + "consumer) wait untaken, a producer's commit returns only once the consumers took them back "
                    + "to it, or after shardq.flow.max-wait-ms"),
    FLOW_TOPIC_MAX_UNTAKEN(
            "shardq.flow.topic-max-untaken",
            "SHARDQ_FLOW_TOPIC_MAX_UNTAKEN",
            "100",
            "producer flow control for topics, on by default (0 turns it off): as shardq.flow.max-untaken, "
                    + "counted on the topic's slowest subscription with a consumer in this instance"),
    FLOW_MAX_WAIT_MS(
            "shardq.flow.max-wait-ms",
            "SHARDQ_FLOW_MAX_WAIT_MS",
            "100",
            "longest flow control holds a producer's commit back"),
    FLOW_CONSUMER_ACTIVE_MS(
            "shardq.flow.consumer-active-ms",
            "SHARDQ_FLOW_CONSUMER_ACTIVE_MS",
            "100",
            "flow control counts the consumers at work while one of them took a message within this"),
    ENQUEUE_MAX_BATCH(
            "shardq.enqueue.max-batch",
            "SHARDQ_ENQUEUE_MAX_BATCH",
            "1000",
            "messages a transacted session buffers per shard before writing them ahead of commit"),
    COMMIT_SHARED_SENDS(
            "shardq.commit.shared-sends",
            "SHARDQ_COMMIT_SHARED_SENDS",
            "false",
            "send batches of different sessions to different shards and destinations committed together in one"
                    + " statement (issue 25, measured in docs/performance.md); false: one group commit per shard"),
    COMMIT_SHARED_CACHE_PUTS(
            "shardq.commit.shared-cache-puts",
            "SHARDQ_COMMIT_SHARED_CACHE_PUTS",
            "true",
            "a transacted session's plain cache puts are held back to its commit, which, when the transaction"
                    + " holds nothing else, joins the cache's group commit with other sessions' puts (issue 25);"
                    + " false: each put is written into the session's transaction at once"),
    HEARTBEAT_MS(
            "shardq.instance.heartbeat-ms",
            "SHARDQ_INSTANCE_HEARTBEAT_MS",
            "1000",
            "how often an instance renews its heartbeat and leases, and the maintenance leader its term"),
    LEASE_TTL_MS(
            "shardq.lease.ttl-ms",
            "SHARDQ_LEASE_TTL_MS",
            "10000",
            "a dequeue lease (or the maintenance leadership) not renewed for this long passes to another instance"),
    MAINTENANCE_LOCK_TIMEOUT_MS(
            "shardq.maintenance.lock-timeout-ms",
            "SHARDQ_MAINTENANCE_LOCK_TIMEOUT_MS",
            "100",
            "how long slice retirement and spare-slot DDL wait for a table lock before retrying later"),
    INSTANCE_NAME(
            "shardq.instance.name",
            "SHARDQ_INSTANCE_NAME",
            "",
            "label of this instance in shardq.instance; empty uses the main class or jar, the process id"
                    + " and the host"),
    GRANT_CACHE_MS(
            "shardq.security.grant-cache-ms",
            "SHARDQ_SECURITY_GRANT_CACHE_MS",
            "10000",
            "how long a connection of a JMS user other than the factory's own role trusts what PostgreSQL "
                    + "said about its privileges on a destination; a revoke reaches open connections within this"),
    REDELIVERY_DELAY_MS(
            "shardq.redelivery.delay-ms",
            "SHARDQ_REDELIVERY_DELAY_MS",
            "0",
            "how long a message whose delivery was rolled back (rollback, recover, a listener's exception) waits "
                    + "before it is delivered again; 0 redelivers at once. The messages behind it are not held back"),
    REDELIVERY_MULTIPLIER(
            "shardq.redelivery.multiplier",
            "SHARDQ_REDELIVERY_MULTIPLIER",
            "1",
            "back-off: the redelivery delay after the n-th failed delivery is delay-ms x multiplier^(n-1), up to "
                    + "shardq.redelivery.max-delay-ms"),
    REDELIVERY_MAX_DELAY_MS(
            "shardq.redelivery.max-delay-ms",
            "SHARDQ_REDELIVERY_MAX_DELAY_MS",
            "60000",
            "the longest redelivery delay the multiplier can reach"),
    SCHEDULE_POLL_MS(
            "shardq.schedule.poll-ms",
            "SHARDQ_SCHEDULE_POLL_MS",
            "100",
            "how often the maintenance leader looks for messages sent with a delivery delay that are due (sooner "
                    + "when the next one is due sooner); a delayed message arrives within about this after its time"),
    KV_MAX_BATCH_SIZE(
            "shardq.kv.max-batch-size",
            "SHARDQ_KV_MAX_BATCH_SIZE",
            "500",
            "entries per statement of a key/value cache's getAll, putAll and removeAll (larger batches are "
                    + "split into chunks, written in one transaction)"),
    KV_TOUCH_INTERVAL_MS(
            "shardq.kv.touch-interval-ms",
            "SHARDQ_KV_TOUCH_INTERVAL_MS",
            "60000",
            "how often an instance records which entries of a bounded key/value cache it read (their "
                    + "touched_at, at most once per key per interval); eviction's idea of recent use is this coarse"),
    KV_MAINTENANCE_MS(
            "shardq.kv.maintenance-ms",
            "SHARDQ_KV_MAINTENANCE_MS",
            "10000",
            "how often the maintenance leader creates key/value cache partitions ahead, drops expired ones "
                    + "and evicts entries beyond a cache's bounds"),
    KV_NEAR_MAX_BYTES(
            "shardq.kv.near-max-bytes",
            "SHARDQ_KV_NEAR_MAX_BYTES",
            "33554432",
            "bound, in key and value bytes, of this instance's near cache of each key/value cache (an in-process "
                    + "copy invalidated at commit); 0 turns near caches off"),
    KV_WRITE_BEHIND_FLUSH_MS(
            "shardq.kv.write-behind-flush-ms",
            "SHARDQ_KV_WRITE_BEHIND_FLUSH_MS",
            "100",
            "how often this instance commits the writes its key/value caches' write-behind views accepted (sooner "
                    + "when a queue holds a batch); what a killed JVM can lose is at most this interval's writes"),
    KV_WRITE_BEHIND_MAX_PENDING(
            "shardq.kv.write-behind-max-pending",
            "SHARDQ_KV_WRITE_BEHIND_MAX_PENDING",
            "10000",
            "keys a key/value cache's write-behind queue holds in this instance before writers wait for a flush"),
    KV_WRITE_BEHIND_BLOCK_MS(
            "shardq.kv.write-behind-block-ms",
            "SHARDQ_KV_WRITE_BEHIND_BLOCK_MS",
            "30000",
            "how long a write-behind write waits for room in a full queue before it fails with RESOURCE_EXHAUSTED "
                    + "(not accepted)"),
    JMS_CLIENT_ID(
            "shardq.jms.client-id",
            "SHARDQ_JMS_CLIENT_ID",
            "",
            "client id configured on the JMS connection factory (empty: none): every connection of the factory "
                    + "carries it from the start, Connection.setClientID on it throws IllegalStateException, and a "
                    + "second open connection with the same id (in any instance) is refused with "
                    + "InvalidClientIDException"),
    JMS_OBJECT_MESSAGE_ALLOW(
            "shardq.jms.object-message.allow",
            "SHARDQ_JMS_OBJECT_MESSAGE_ALLOW",
            "",
            "classes an ObjectMessage body may hold beyond the built-in JDK value and collection classes, as "
                    + "java.io.ObjectInputFilter patterns separated by ; (com.acme.Order;com.acme.events.*;"
                    + "com.acme.**; !name refuses, * alone allows every class)"),
    KV_LOAD_TIMEOUT_MS(
            "shardq.kv.load-timeout-ms",
            "SHARDQ_KV_LOAD_TIMEOUT_MS",
            "30000",
            "how long a read-through get waits for another thread's or instance's load of the same key, and how "
                    + "long a loader may run before its result is refused and every waiter gets a timeout error");

    private final String key;
    private final String envName;
    private final String defaultValue;
    private final String description;

    BrokerProperty(String key, String envName, String defaultValue, String description) {
        this.key = key;
        this.envName = envName;
        this.defaultValue = defaultValue;
        this.description = description;
    }

    public String key() {
        return key;
    }

    public String envName() {
        return envName;
    }

    public String defaultValue() {
        return defaultValue;
    }

    public String description() {
        return description;
    }
}

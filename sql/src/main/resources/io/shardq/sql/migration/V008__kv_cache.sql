-- V008: the key/value cache catalog (issue 11).
-- Why: named caches are stored in PostgreSQL so that every instance shares them, they survive
-- restarts and their writes commit with the messages. This table holds each cache's settings and
-- the counters only the maintenance leader writes; the entries live in one partitioned table per
-- cache (shardq."kv_<id>", created by shardq.create_cache, partitioned by expiry bucket), never
-- here. Names follow the destination rule. bucket_ms is fixed at creation: the partitions' ranges
-- are numbered in it (see "Key/value cache" in docs/architecture.md).
-- Forward only: never edit this file once landed.
CREATE TABLE shardq.kv_cache (
    id              integer     GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name            text        NOT NULL UNIQUE
                                CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'),
    durable         boolean     NOT NULL DEFAULT true,
    default_ttl_ms  bigint      CHECK (default_ttl_ms > 0),
    max_ttl_ms      bigint      NOT NULL CHECK (max_ttl_ms > 0),
    max_entries     bigint      CHECK (max_entries > 0),
    max_bytes       bigint      CHECK (max_bytes > 0),
    bucket_ms       bigint      NOT NULL CHECK (bucket_ms >= 1000),
    max_key_bytes   integer     NOT NULL DEFAULT 1024 CHECK (max_key_bytes BETWEEN 1 AND 65536),
    max_value_bytes integer     NOT NULL DEFAULT 1048576 CHECK (max_value_bytes BETWEEN 1 AND 268435456),
    created_at      timestamptz NOT NULL DEFAULT now(),
    evictions       bigint      NOT NULL DEFAULT 0,
    expirations     bigint      NOT NULL DEFAULT 0,
    CHECK (default_ttl_ms IS NULL OR default_ttl_ms <= max_ttl_ms)
);
COMMENT ON TABLE shardq.kv_cache IS
    'Named key/value caches; entries in shardq."kv_<id>", partitioned by expiry bucket (bucket_ms wide)';

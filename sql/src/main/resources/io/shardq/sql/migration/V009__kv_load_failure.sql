-- V009: failed read-through loads of the key/value caches (issue 11, single-flight loading).
-- Why: a read-through miss is loaded by one instance at a time per key (a session-level advisory
-- lock); instances waiting on that lock must get the loader's error rather than call it again. The
-- failing instance writes the error here before it releases the lock; a waiter reads the row of
-- the attempt it waited for (attempt_at at or after its own try). One row per cache and key hash
-- (the latest failure), so the table holds at most one row per key whose loader ever failed.
-- Forward only: never edit this file once landed.
CREATE TABLE shardq.kv_load_failure (
    cache_id   integer     NOT NULL,
    key_hash   integer     NOT NULL,
    k          bytea       NOT NULL,
    attempt_at timestamptz NOT NULL,
    error      text        NOT NULL,
    PRIMARY KEY (cache_id, key_hash)
);
COMMENT ON TABLE shardq.kv_load_failure IS
    'The latest failed read-through load per cache and key hash, for the instances that waited on it';

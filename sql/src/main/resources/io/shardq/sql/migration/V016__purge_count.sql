-- V016: purges are counted apart from consumption (issue 24).
-- The console derived dequeues from enqueued - backlog, so a purge looked like a spike of
-- consumption. purge_queue (R__shardq_admin.sql) now adds what it discarded here, whoever calls it
-- (the console, shardq queue purge, psql), so a reader can take purged messages out of the
-- dequeues. The row goes with its destination.
-- Forward only: never edit this file once landed.
CREATE TABLE shardq.purge_count (
    destination_id integer     NOT NULL PRIMARY KEY REFERENCES shardq.destination (id) ON DELETE CASCADE,
    purged         bigint      NOT NULL DEFAULT 0 CHECK (purged >= 0),
    purges         bigint      NOT NULL DEFAULT 0 CHECK (purges >= 0),
    last_purge_at  timestamptz
);
COMMENT ON TABLE shardq.purge_count IS
    'Messages discarded by shardq.purge_queue per queue since it was created, and how many purges';

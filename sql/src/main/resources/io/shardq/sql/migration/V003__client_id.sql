-- V003: JMS client ids, unique across instances.
-- Why: JMS lets one connection at a time use a client id (durable subscriptions are named by
-- it); a check inside one JVM does not see the connections of other instances. A row per client
-- id in use, taken by an upsert that succeeds only when the id is free or its holder's instance
-- is dead (no heartbeat within the lease TTL, or stopped), deleted when the connection closes.
-- Forward only: never edit this file once landed; add V004__... instead.
CREATE TABLE shardq.client_id (
    client_id     text        PRIMARY KEY,
    instance_id   bigint      NOT NULL,
    connection_id uuid        NOT NULL,
    taken_at      timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE shardq.client_id IS
    'JMS client ids in use: which instance and connection holds each';

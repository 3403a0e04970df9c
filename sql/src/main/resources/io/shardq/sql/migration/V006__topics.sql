-- V006: topics (issue 10): subscriptions with JMS identities, the subscription version that makes
-- bit reuse safe, who consumes each subscription where, and the per-topic expiry policy.
-- Why each piece (docs/architecture.md, "Topics"):
-- * shard.sub_version / destination.sub_version: bumped (both, in one transaction, holding every
--   shard row of the topic) whenever a subscription is created or dropped. A publisher names the
--   version its subscriber bitmaps were computed for in its reserving statement, so a message
--   committed after a change always carries the right bits, and a reused bit never reaches a new
--   subscription with an old one's messages.
-- * subscription identity: JMS names a durable or shared subscription by (client id, name) across
--   every topic, so the old per-destination UNIQUE (destination_id, name) goes; a queue keeps its
--   one subscription ('').
-- * subscription_consumer: open consumers per (subscription, instance), written only when a
--   consumer opens or closes, so the one-consumer rule of unshared durable subscriptions and
--   "unsubscribe refused while a consumer is active" hold across instances.
-- Forward only: never edit this file once landed; add V008__... instead (V007 is taken).

ALTER TABLE shardq.shard ADD COLUMN sub_version bigint NOT NULL DEFAULT 0;

ALTER TABLE shardq.destination
    ADD COLUMN sub_version bigint NOT NULL DEFAULT 0,
    ADD COLUMN max_lag bigint CHECK (max_lag > 0),
    ADD COLUMN max_age_seconds bigint CHECK (max_age_seconds > 0);

ALTER TABLE shardq.subscription
    ADD COLUMN client_id text,
    ADD COLUMN shared boolean NOT NULL DEFAULT false,
    ADD COLUMN no_local boolean NOT NULL DEFAULT false,
    -- added by an administrator (shardq.add_subscriber): JMS consumers attach to it as it is
    ADD COLUMN administered boolean NOT NULL DEFAULT false,
    -- non-durable subscriptions: the instance (and, unshared, the JMS connection) they live for
    ADD COLUMN owner_instance bigint,
    ADD COLUMN owner_connection text,
    -- what the expiry policy took from this subscription, so it is never silent
    ADD COLUMN expired_seqs bigint NOT NULL DEFAULT 0,
    ADD COLUMN expired_at timestamptz;

ALTER TABLE shardq.subscription DROP CONSTRAINT subscription_destination_id_name_key;
CREATE UNIQUE INDEX subscription_queue ON shardq.subscription (destination_id) WHERE name = '';
CREATE UNIQUE INDEX subscription_identity ON shardq.subscription (coalesce(client_id, ''), name) WHERE name <> '';

CREATE TABLE shardq.subscription_consumer (
    subscription_id bigint  NOT NULL REFERENCES shardq.subscription (id) ON DELETE CASCADE,
    instance_id     bigint  NOT NULL,
    consumers       integer NOT NULL CHECK (consumers >= 0),
    PRIMARY KEY (subscription_id, instance_id)
);
COMMENT ON TABLE shardq.subscription_consumer IS
    'Open consumers of each subscription per instance; rows of dead instances do not count';

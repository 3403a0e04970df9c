-- V007: temporary destinations (JMS TemporaryQueue and TemporaryTopic, issue 10).
-- Why: a temporary destination is an ordinary destination (other instances send to it by name,
-- as a reply) that belongs to one JMS connection of one instance: it is dropped when that
-- connection closes, and by the maintenance leader when its instance dies (no heartbeat within
-- the lease TTL, or stopped). This table says which destinations are temporary and who owns
-- them. A table of its own rather than columns on shardq.destination: nothing that reads the
-- catalog changes, and the row goes with its destination (ON DELETE CASCADE).
-- V006 is reserved for the topics work. Forward only: never edit this file once landed.
CREATE TABLE shardq.temporary_destination (
    destination_id integer     PRIMARY KEY REFERENCES shardq.destination (id) ON DELETE CASCADE,
    instance_id    bigint      NOT NULL,
    connection_id  uuid        NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX temporary_destination_instance ON shardq.temporary_destination (instance_id);
COMMENT ON TABLE shardq.temporary_destination IS
    'Temporary destinations (names tmp.*): the instance and JMS connection that own each';

-- V010: messages sent with a delivery delay (issue 12).
-- Why: a shard is a log consumed in sequence order, and its slices are retired only once every
-- cursor has passed them. A delayed message written into the log would either hold back the
-- messages behind it or, skipped, pin its slice (and every later one) until it is due: a day's
-- delay would keep a day of the queue on disk. So a delayed message waits here, outside every
-- shard, and the maintenance leader moves it into a shard of its destination when it is due (one
-- transaction: the normal enqueue of the message and the delete of this row), after which it is
-- an ordinary message. Its header and body are stored as in a shard's leaf.
-- Forward only: never edit this file once landed.
CREATE TABLE shardq.scheduled_message (
    id             bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    destination_id integer     NOT NULL REFERENCES shardq.destination (id) ON DELETE CASCADE,
    deliver_at     bigint      NOT NULL,
    expires_at     bigint      NOT NULL,
    priority       smallint    NOT NULL,
    header         bytea       NOT NULL,
    body           bytea       NOT NULL,
    scheduled_at   timestamptz NOT NULL DEFAULT clock_timestamp()
);
COMMENT ON TABLE shardq.scheduled_message IS
    'Messages sent with a delivery delay, until the maintenance leader moves them into a shard when due';
-- the mover's query: the due rows, oldest first
CREATE INDEX scheduled_message_due ON shardq.scheduled_message (deliver_at, id);
-- destination drops and backlog figures
CREATE INDEX scheduled_message_destination ON shardq.scheduled_message (destination_id);

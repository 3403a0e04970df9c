-- V011: per-destination delivery policy (issue 12): where expired messages go, and how long a
-- message whose delivery failed waits before it is delivered again.
-- expiry_name: a queue that receives the messages of this destination found expired when they
-- would have been delivered (null: they are dropped, as before). redelivery_delay_ms and
-- redelivery_multiplier: the redelivery delay after the n-th failed delivery is
-- delay x multiplier^(n-1) (null: the instance's shardq.redelivery.* settings). message_groups:
-- messages with a JMSXGroupID go to the shard their group id hashes to, and each shard is taken
-- by one consumer session at a time, so a group's messages reach one consumer at a time, in order.
-- Set with shardq.set_delivery_policy (R__shardq_admin.sql).
-- Forward only: never edit this file once landed.
ALTER TABLE shardq.destination
    ADD COLUMN expiry_name text CHECK (expiry_name ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'),
    ADD COLUMN redelivery_delay_ms integer CHECK (redelivery_delay_ms >= 0),
    ADD COLUMN redelivery_multiplier real CHECK (redelivery_multiplier >= 1),
    ADD COLUMN message_groups boolean NOT NULL DEFAULT false;

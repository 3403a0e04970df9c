-- V015: a destination shrinks online (issue 23, item 4).
-- alter_queue(shards => N) with N below the shard count no longer refuses: shards N and above
-- become draining, consumers drain them, and the maintenance leader retires each drained one
-- (shardq.shrink_step), dropping its storage, until the destination has N shards again.
--   destination.draining_from: N while shards N and above drain (null: no shrink under way).
--   shard.drain_head: on a draining shard, its last sequence number when it began to drain. The
--     CHECK freezes it: an enqueue that would move next_seq past it fails (23514, constraint
--     shard_draining_frozen), in the statement that reserves, at no extra cost on the hot path.
--   shard.fence: on an active shard while draining shards are not yet empty, its next_seq when
--     the shrink began. Consumers see such a shard's head no higher than fence - 1 until every
--     subscription's cursor of every draining shard passed its drain head (then the leader clears
--     the fences): a producer that left a draining shard writes its later messages at or beyond
--     a fence, so they are never delivered before its earlier ones on the draining shard (see
--     "Resharding" in docs/architecture.md).
-- Forward only: never edit this file once landed.
ALTER TABLE shardq.destination
    ADD COLUMN draining_from integer CHECK (draining_from BETWEEN 1 AND 255);
ALTER TABLE shardq.shard
    ADD COLUMN drain_head bigint,
    ADD COLUMN fence bigint,
    ADD CONSTRAINT shard_draining_frozen CHECK (drain_head IS NULL OR next_seq <= drain_head + 1);

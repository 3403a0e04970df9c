-- V014: message groups keep their shard when a destination grows (issue 23).
-- Until now a message's group went to floorMod(hash(JMSXGroupID), shard_count), so growing a
-- grouped queue moved most groups to another shard mid-stream, and their order across the change
-- was lost. group_map records the assignment instead: a group goes to
-- group_map[floorMod(hash, cardinality(group_map))]; null means the identity over the current
-- shard count (what every destination had so far, so nothing moves at this migration).
-- alter_queue/alter_topic fill it with the identity over the old count before they add shards to a
-- destination with message groups, so the groups stay where they are and the new shards take the
-- messages without a group.
-- Forward only: never edit this file once landed.
ALTER TABLE shardq.destination
    ADD COLUMN group_map smallint[] CHECK (cardinality(group_map) BETWEEN 1 AND 256 AND 0 <= ALL (group_map));

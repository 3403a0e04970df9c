-- V017: a cursor's lease is numbered (issue 23).
-- An instance that forgets what it knows of a shard (a commit in doubt, a guard that failed) keeps
-- the database lease and takes it again, re-reading cursor and dequeue log. A consumer commit of
-- that instance planned before the forget but not yet run (waiting for a pool connection while
-- PostgreSQL restarted) would still find lease_instance = its instance and log what it consumed
-- beyond the cursor, after the re-read had handed the same messages out again: consumed twice.
-- Every acquisition now increments lease_seq, and a log insert must name the lease_seq it was
-- planned under (dequeue_range_insert), so a commit from before a re-acquisition logs nothing and
-- fails as a lost lease. Cursor moves were already fenced by their position guard.
-- Forward only: never edit this file once landed.
ALTER TABLE shardq.cursor ADD COLUMN lease_seq bigint NOT NULL DEFAULT 0;
COMMENT ON COLUMN shardq.cursor.lease_seq IS
    'Incremented by every lease acquisition; consumption logged beyond the cursor must name it';

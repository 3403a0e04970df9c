-- Consumers that share a shard log what they consume beyond the cursor. One row per message
-- (shardq.dequeue_log) made that log the most expensive statement of the consumer path with 16
-- consumer sessions on 8 shards (pg_stat_statements, `shardq perf queue --threads 16`: half the
-- consumer commits logged, 10 rows each, and each row's foreign-key check took FOR KEY SHARE on
-- the queue's one subscription row, shared by every concurrent logger: multixacts). A logged
-- commit takes runs of consecutive sequence numbers, so a run is now one row, and the table has no
-- foreign key: a subscription's rows are deleted by a trigger when it goes.
CREATE TABLE shardq.dequeue_range (
    subscription_id bigint  NOT NULL,
    shard_no        integer NOT NULL,
    first_seq       bigint  NOT NULL,
    last_seq        bigint  NOT NULL,
    PRIMARY KEY (subscription_id, shard_no, first_seq),
    CHECK (last_seq >= first_seq)
);

-- the rows of the old log, each run of consecutive sequence numbers as one range
INSERT INTO shardq.dequeue_range (subscription_id, shard_no, first_seq, last_seq)
SELECT subscription_id, shard_no, min(seq), max(seq)
  FROM (SELECT subscription_id, shard_no, seq,
               seq - row_number() OVER (PARTITION BY subscription_id, shard_no ORDER BY seq) AS run
          FROM shardq.dequeue_log) l
 GROUP BY subscription_id, shard_no, run;

DROP TABLE shardq.dequeue_log;

CREATE FUNCTION shardq.subscription_deleted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM shardq.dequeue_range WHERE subscription_id = OLD.id;
    RETURN OLD;
END $$;

CREATE TRIGGER subscription_deleted AFTER DELETE ON shardq.subscription
    FOR EACH ROW EXECUTE FUNCTION shardq.subscription_deleted();

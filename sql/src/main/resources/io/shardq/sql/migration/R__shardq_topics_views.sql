-- R__shardq_topics_views: what a topic holds, as read-only SQL functions (issue 10), so psql
-- users and `shardq topic list|stats` read the same thing:
--   select * from shardq.topics();                   -- every topic, its expiry policy, what it retains
--   select * from shardq.topic_shard_stats('prices'); -- per shard: head, slowest cursor and whose
-- (the subscriptions themselves, with lag and who holds retirement: shardq.subscriptions(topic)).
-- shardq.shard_stats reads a queue's one subscription; a topic has a cursor per subscription and
-- shard, so what matters per shard is the slowest one: nothing before it can be retired.
-- Repeatable: CREATE OR REPLACE only. Flyway orders repeatable migrations by description, so this
-- runs after R__shardq_topics.sql (shardq.topic_id, shardq.enqueued_at). plpgsql, so the bodies
-- are checked when they run and the file also applies to a schema rebuilt at an older version.

-- One row per topic (or only the one named): its settings, its expiry policy (null: no limit), how
-- many subscriptions it has, and the messages it retains (stored, not yet passed by every
-- subscription).
CREATE OR REPLACE FUNCTION shardq.topics(topic text DEFAULT NULL)
RETURNS TABLE (
    name             text,
    shard_count      integer,
    slice_size       integer,
    max_attempts     integer,
    dead_letter_name text,
    max_lag          bigint,
    max_age_seconds  bigint,
    subscriptions    bigint,
    retained         bigint)
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN QUERY
    SELECT d.name, d.shard_count, d.slice_size, d.max_attempts, d.dead_letter_name, d.max_lag, d.max_age_seconds,
           (SELECT count(*) FROM shardq.subscription s WHERE s.destination_id = d.id),
           shardq.backlog(d.name)
      FROM shardq.destination d
     WHERE d.kind = 'topic' AND (topics.topic IS NULL OR d.name = topics.topic)
     ORDER BY d.name;
END $$;

-- Per shard of a topic: the next sequence number; the slowest cursor, whose it is (ties: the
-- lowest bit) and how many subscriptions share that position; the messages retained behind it and
-- the age of the oldest; the slices in use and the bytes of the shard's tables; the instance owning
-- the shard for enqueue. A topic without subscriptions has no cursor: slowest_* are null.
CREATE OR REPLACE FUNCTION shardq.topic_shard_stats(topic text)
RETURNS TABLE (
    shard_no              integer,
    next_seq              bigint,
    slowest_position      bigint,
    slowest_subscription  text,
    slowest_client_id     text,
    slowest_count         bigint,
    retained              bigint,
    oldest_retained_ms    bigint,
    slices_in_use         bigint,
    slices_free           bigint,
    table_bytes           bigint,
    dead_tuples           bigint,
    owner_instance        bigint)
LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_topic integer := shardq.topic_id(topic_shard_stats.topic);
    v_now bigint := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
    r record;
BEGIN
    FOR r IN SELECT s.shard_no, s.next_seq, s.owner_instance FROM shardq.shard s
              WHERE s.destination_id = v_topic ORDER BY s.shard_no
    LOOP
        shard_no := r.shard_no;
        next_seq := r.next_seq;
        owner_instance := r.owner_instance;
        SELECT c.position, sub.name, sub.client_id INTO slowest_position, slowest_subscription, slowest_client_id
          FROM shardq.cursor c JOIN shardq.subscription sub ON sub.id = c.subscription_id
         WHERE c.destination_id = v_topic AND c.shard_no = r.shard_no
         ORDER BY c.position, sub.bit LIMIT 1;
        IF NOT FOUND THEN
            slowest_position := NULL;
            slowest_subscription := NULL;
            slowest_client_id := NULL;
        END IF;
        SELECT count(*) INTO slowest_count FROM shardq.cursor c
         WHERE c.destination_id = v_topic AND c.shard_no = r.shard_no AND c.position = slowest_position;
        retained := r.next_seq - 1 - coalesce(slowest_position, r.next_seq - 1);
        oldest_retained_ms := CASE WHEN retained > 0
                                   THEN greatest(0, v_now - shardq.enqueued_at(v_topic, r.shard_no, slowest_position + 1))
                              END;
        SELECT count(*) FILTER (WHERE sl.first_seq IS NOT NULL), count(*) FILTER (WHERE sl.first_seq IS NULL)
          INTO slices_in_use, slices_free
          FROM shardq.slice sl WHERE sl.destination_id = v_topic AND sl.shard_no = r.shard_no;
        SELECT l.bytes, l.dead_tuples INTO table_bytes, dead_tuples FROM shardq.leaf_stats(v_topic, r.shard_no) l;
        RETURN NEXT;
    END LOOP;
END $$;

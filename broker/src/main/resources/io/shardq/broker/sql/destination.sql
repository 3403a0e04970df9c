-- Destinations and their shards (shardq.destination, shardq.shard): the catalog snapshot, shard
-- ownership, subscriptions, queue consumers, temporary destinations, shrinking.
--
-- Named statements, one block per statement: "-- name: <table>_<verb>_<qualifier>", comment lines,
-- the statement. Every value is a bind parameter; a /* TEMPLATE: ... */ slot takes only an
-- identifier built from numeric catalog ids (Queries), always quoted. The build generates the
-- enum io.shardq.broker.internal.Query from these names (src/build/QueryNames.java), so a misspelt
-- name fails compilation; QueriesTest PREPAREs every statement against the migrated schema.

-- name: destination_select_by_name
-- The destination named ? (given twice), its queue subscription, and the fences of its active
-- shards while it shrinks (joins, not subqueries per row: Citus correlates no subquery with a
-- reference table's rows).
SELECT d.id, d.name, d.kind, d.shard_count, d.slice_size, d.max_attempts, d.dead_letter_name,
       d.enqueue_enabled, d.dequeue_enabled,
       qs.id AS queue_subscription,
       d.sub_version, d.expiry_name, d.redelivery_delay_ms, d.redelivery_multiplier, d.message_groups,
       d.group_map, d.draining_from, f.fences
  FROM shardq.destination d
  LEFT JOIN shardq.subscription qs ON qs.destination_id = d.id AND qs.name = ''
  LEFT JOIN (SELECT s.destination_id, array_agg(s.fence ORDER BY s.shard_no) AS fences
               FROM shardq.shard s JOIN shardq.destination dd ON dd.id = s.destination_id
              WHERE dd.draining_from IS NOT NULL AND s.shard_no < dd.draining_from AND dd.name = ?
              GROUP BY s.destination_id) f ON f.destination_id = d.id
 WHERE d.name = ?

-- name: destination_select_all
SELECT d.id, d.name, d.kind, d.shard_count, d.slice_size, d.max_attempts, d.dead_letter_name,
       d.enqueue_enabled, d.dequeue_enabled,
       qs.id AS queue_subscription,
       d.sub_version, d.expiry_name, d.redelivery_delay_ms, d.redelivery_multiplier, d.message_groups,
       d.group_map, d.draining_from, f.fences
  FROM shardq.destination d
  LEFT JOIN shardq.subscription qs ON qs.destination_id = d.id AND qs.name = ''
  LEFT JOIN (SELECT s.destination_id, array_agg(s.fence ORDER BY s.shard_no) AS fences
               FROM shardq.shard s JOIN shardq.destination dd ON dd.id = s.destination_id
              WHERE dd.draining_from IS NOT NULL AND s.shard_no < dd.draining_from
              GROUP BY s.destination_id) f ON f.destination_id = d.id
 ORDER BY d.name

-- name: shard_reserve
-- Reserves ? sequence numbers and keeps the row locked until commit (the visibility rule);
-- returns the first reserved number and the instance that asked to be woken, clearing it
-- (SET expressions read the old row, so notified = the old waiter).
UPDATE shardq.shard
   SET next_seq = next_seq + ?, waiter = NULL, notified = waiter
 WHERE destination_id = ? AND shard_no = ?
RETURNING next_seq - ?, notified, fence

-- name: shard_claim_owner
-- Enqueue affinity: takes up to ? shards of the destination that no live instance owns
-- (shardq.live_instances), lowest numbers first. No SKIP LOCKED: the shards worth taking are the
-- ones being written, whose rows an enqueue holds until its commit (the visibility rule); the caller
-- runs it under a short lock_timeout instead. The condition is checked again on the locked row, so
-- of two instances racing for a shard one gets it.
UPDATE shardq.shard s SET owner_instance = ?
 WHERE s.destination_id = ? AND s.shard_no IN (
       SELECT x.shard_no FROM shardq.shard x
        WHERE x.destination_id = ?
          AND (x.owner_instance IS NULL OR x.owner_instance NOT IN (SELECT shardq.live_instances(?)))
          AND x.drain_head IS NULL
        ORDER BY x.shard_no LIMIT ?)
   AND (s.owner_instance IS NULL OR s.owner_instance NOT IN (SELECT shardq.live_instances(?)))
   AND s.drain_head IS NULL
RETURNING s.shard_no

-- name: shard_select_owners
-- Who owns which shard of a destination for enqueue (null: nobody).
SELECT shard_no, owner_instance FROM shardq.shard WHERE destination_id = ? ORDER BY shard_no

-- name: shard_release_owner_some
-- Gives back enqueue ownership of some shards of a destination (beyond this instance's fair share);
-- run under a short lock_timeout, as shard_claim_owner.
UPDATE shardq.shard SET owner_instance = NULL
 WHERE destination_id = ? AND shard_no = ANY(?) AND owner_instance = ?
RETURNING shard_no

-- name: shard_release_owner
-- SKIP LOCKED: a shard row held by a prepared transaction's send (XA) keeps its owner, which is
-- dead once it stops (shard_claim_owner takes such shards), instead of hanging the close.
UPDATE shardq.shard SET owner_instance = NULL
 WHERE (destination_id, shard_no) IN (
       SELECT destination_id, shard_no FROM shardq.shard WHERE owner_instance = ? FOR UPDATE SKIP LOCKED)

-- name: shard_select_heads
-- What consumers see of a shard's next_seq: never beyond its fence while its destination shrinks
-- (V015; least ignores a null fence), here and in every other read of a head for consumers.
SELECT shard_no, least(next_seq, fence) FROM shardq.shard WHERE destination_id = ?

-- name: shard_set_waiter
UPDATE shardq.shard SET waiter = ?
 WHERE destination_id = ? AND shard_no = ANY(?) AND waiter IS DISTINCT FROM ?
RETURNING shard_no, least(next_seq, fence)

-- name: destination_select_by_id
-- As destination_select_by_name, by id (given twice).
SELECT d.id, d.name, d.kind, d.shard_count, d.slice_size, d.max_attempts, d.dead_letter_name,
       d.enqueue_enabled, d.dequeue_enabled,
       qs.id AS queue_subscription,
       d.sub_version, d.expiry_name, d.redelivery_delay_ms, d.redelivery_multiplier, d.message_groups,
       d.group_map, d.draining_from, f.fences
  FROM shardq.destination d
  LEFT JOIN shardq.subscription qs ON qs.destination_id = d.id AND qs.name = ''
  LEFT JOIN (SELECT s.destination_id, array_agg(s.fence ORDER BY s.shard_no) AS fences
               FROM shardq.shard s JOIN shardq.destination dd ON dd.id = s.destination_id
              WHERE dd.draining_from IS NOT NULL AND s.shard_no < dd.draining_from AND dd.id = ?
              GROUP BY s.destination_id) f ON f.destination_id = d.id
 WHERE d.id = ?

-- name: destination_select_privileges
-- What a role (?) may do with a destination (?), asked of PostgreSQL: shardq.has_privilege reads
-- the table privileges on shardq.m_<id> (false for a role that does not exist). No row when the
-- destination does not exist.
-- Anyone may send to a temporary destination (V007): its generated name is the capability, handed
-- out as JMSReplyTo; receiving and browsing it are for its own connection, checked by the JMS layer.
SELECT shardq.has_privilege(r.role_name, d.id, 'send')
           OR EXISTS (SELECT 1 FROM shardq.temporary_destination t WHERE t.destination_id = d.id),
       shardq.has_privilege(r.role_name, d.id, 'receive'),
       shardq.has_privilege(r.role_name, d.id, 'browse'),
       shardq.has_privilege(r.role_name, d.id, 'administer')
  FROM (SELECT ?::text AS role_name) r
  JOIN shardq.destination d ON d.name = ?

-- name: shard_lock_version
-- A topic's slow enqueue path: lock the shard row first (the visibility rule) and read the
-- subscription version, so the bitmaps are computed against subscriptions that cannot change
-- before this transaction ends.
SELECT sub_version, next_seq FROM shardq.shard WHERE destination_id = ? AND shard_no = ? FOR UPDATE

-- name: topic_view_select
-- The subscriptions of a topic as publishers need them, with the version they belong to (one
-- snapshot). A topic without subscriptions gives one row with a null id.
SELECT d.sub_version, s.id, s.bit, s.selector, s.no_local, s.client_id, s.owner_connection
  FROM shardq.destination d LEFT JOIN shardq.subscription s ON s.destination_id = d.id
 WHERE d.id = ?
 ORDER BY s.bit

-- name: subscription_subscribe
SELECT sub_id, sub_bit FROM shardq.subscribe(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)

-- name: subscription_consumer_closed
SELECT shardq.consumer_closed(?, ?, ?)

-- name: queue_consumers_upsert
-- This instance's open consumers of a queue (QueueConsumerCounts); nothing when the queue's
-- subscription is gone (dropped meanwhile).
INSERT INTO shardq.subscription_consumer AS c (subscription_id, instance_id, consumers)
SELECT s.id, ?, ? FROM shardq.subscription s WHERE s.id = ?
    ON CONFLICT (subscription_id, instance_id) DO UPDATE SET consumers = EXCLUDED.consumers

-- name: queue_consumers_delete
DELETE FROM shardq.subscription_consumer WHERE subscription_id = ? AND instance_id = ?

-- name: queue_consumers_delete_all
DELETE FROM shardq.subscription_consumer WHERE instance_id = ? AND subscription_id = ANY (?)

-- name: subscription_unsubscribe
SELECT shardq.unsubscribe(?, ?, ?)

-- name: subscription_reap
SELECT shardq.reap_subscriptions(?)

-- name: subscription_expire_all
-- The expiry policy of every topic that has one (the maintenance leader, every few heartbeats).
SELECT d.id, d.name, e.subscription, e.client_id, e.shard_no, e.from_seq, e.to_seq
  FROM shardq.destination d, LATERAL shardq.expire_subscriptions(d.id) e
 WHERE d.kind = 'topic' AND (d.max_lag IS NOT NULL OR d.max_age_seconds IS NOT NULL)

-- name: temporary_select_dead
-- Temporary destinations whose instance is dead: stopped, gone, or no heartbeat within ? seconds.
SELECT d.name
  FROM shardq.temporary_destination t
  JOIN shardq.destination d ON d.id = t.destination_id
 WHERE NOT EXISTS (SELECT 1 FROM shardq.instance i
                    WHERE i.id = t.instance_id AND i.stopped_at IS NULL
                      AND i.heartbeat_at > now() - make_interval(secs => ?))
 ORDER BY t.created_at

-- name: temporary_select_owner
-- The owner of a temporary destination (?): instance and connection; no row when it is not one.
SELECT t.instance_id, t.connection_id
  FROM shardq.temporary_destination t
  JOIN shardq.destination d ON d.id = t.destination_id
 WHERE d.name = ?

-- name: temporary_select_by_instance
SELECT d.name
  FROM shardq.temporary_destination t
  JOIN shardq.destination d ON d.id = t.destination_id
 WHERE t.instance_id = ?

-- Key/value cache (issue 11). /* TEMPLATE: kv */ is a cache's partitioned entry table,
-- shardq."kv_<id>"; times are the engine's clock in epoch ms (shardq.kv_ts). Every read filters
-- on expiry: an expired entry is never returned, whether or not its partition is reclaimed yet.

-- name: shrink_select_draining
-- Destinations with a shrink under way (V015), for the maintenance leader's shrink steps.
SELECT id, name FROM shardq.destination WHERE draining_from IS NOT NULL ORDER BY id

-- name: shrink_step
SELECT event, shard_no FROM shardq.shrink_step(?, ?)

-- name: shard_select_fenced
-- Does a shard of the destination still have a shrink's fence (V015)?
SELECT EXISTS (SELECT 1 FROM shardq.shard WHERE destination_id = ? AND fence IS NOT NULL)

-- name: temporary_create
SELECT shardq.create_temporary(?, ?, ?)

-- name: temporary_drop
SELECT shardq.drop_temporary(?, ?)

-- name: shard_select_heads_and_positions
-- A browse's start: each shard's head as consumers see it (as shard_select_heads) and the queue's
-- cursor on it (subscription ?), below which nothing waits.
SELECT s.shard_no, least(s.next_seq, s.fence), c.position
  FROM shardq.shard s JOIN shardq.cursor c ON c.destination_id = s.destination_id AND c.shard_no = s.shard_no
 WHERE s.destination_id = ? AND c.subscription_id = ?

-- Administration (Admin and its parts): the shardq.* administration functions of the schema and
-- the reads behind queue, topic and subscription statistics. Each function checks the caller's
-- privileges itself (require_administer, require_owner); arguments are bind parameters.
--
-- Named statements, one block per statement: "-- name: <table>_<verb>_<qualifier>", comment lines,
-- the statement. Every value is a bind parameter; a /* TEMPLATE: ... */ slot takes only an
-- identifier built from numeric catalog ids (Queries), always quoted. The build generates the
-- enum io.shardq.broker.internal.Query from these names (src/build/QueryNames.java), so a misspelt
-- name fails compilation; QueriesTest PREPAREs every statement against the migrated schema.

-- name: admin_create_queue
SELECT shardq.create_queue(?, shards => ?, slice_size => ?, max_attempts => ?, if_not_exists => ?)

-- name: admin_create_topic
SELECT shardq.create_topic(?, shards => ?, slice_size => ?, max_attempts => ?, if_not_exists => ?)

-- name: admin_drop_queue
SELECT shardq.drop_queue(?, force => ?)

-- name: admin_alter_queue
SELECT shardq.alter_queue(?, shards => ?, slice_size => ?, max_attempts => ?, dead_letter_name => ?)

-- name: admin_drop_topic
SELECT shardq.drop_topic(?, force => ?)

-- name: admin_alter_topic
SELECT shardq.alter_topic(?, shards => ?::integer, slice_size => ?::integer, max_attempts => ?::integer,
       dead_letter_name => ?::text, max_lag => ?::bigint, max_age_seconds => ?::bigint)

-- name: admin_start_queue
SELECT shardq.start_queue(?, enqueue => ?, dequeue => ?)

-- name: admin_stop_queue
SELECT shardq.stop_queue(?, enqueue => ?, dequeue => ?)

-- name: admin_purge_queue
SELECT shardq.purge_queue(?)

-- name: admin_backlog
SELECT shardq.backlog(?)

-- name: admin_topic_id
-- Raises the error that names an unknown topic, or a queue given as a topic.
SELECT shardq.topic_id(?)

-- name: admin_select_topics
SELECT name, max_lag, max_age_seconds, subscriptions, retained FROM shardq.topics()

-- name: admin_select_topic
SELECT name, max_lag, max_age_seconds, subscriptions, retained FROM shardq.topics(?)

-- name: admin_select_topic_shards
SELECT shard_no, next_seq, slowest_position, slowest_subscription, slowest_client_id, slowest_count,
       retained, oldest_retained_ms, slices_in_use, slices_free, table_bytes, dead_tuples, owner_instance
  FROM shardq.topic_shard_stats(?)

-- name: admin_select_queue_shards
-- Per shard of a queue: waiting excludes messages taken out of order.
SELECT shard_no, next_seq, cursor_position, waiting, lease_instance, draining FROM shardq.shard_stats(?)

-- name: admin_select_oldest_waiting
-- When the oldest waiting message of a queue was enqueued: the first row past each shard's cursor.
SELECT min(m.enqueued_at) FROM /* TEMPLATE: parent */ m
  JOIN shardq.cursor c ON c.subscription_id = ? AND c.shard_no = m.shard_no
 WHERE m.seq = c.position + 1

-- name: admin_select_slice_counts
SELECT count(*) FILTER (WHERE first_seq IS NOT NULL), count(*) FILTER (WHERE first_seq IS NULL)
  FROM shardq.slice WHERE destination_id = ?

-- name: admin_select_table_size
-- Bytes and dead tuples of a destination's leaves (on Citus: of their placements on the workers)
SELECT bytes, dead_tuples FROM shardq.leaf_stats(?)

-- name: admin_count_scheduled
SELECT count(*) FROM shardq.scheduled_message WHERE destination_id = ?

-- name: admin_select_consumers
-- Who consumes what: every destination when the first parameter is null, else that one.
SELECT destination, kind, subscription, client_id, instance_id, instance_name, consumers
  FROM shardq.consumers(alive_within_seconds => ?)
 WHERE ?::text IS NULL OR destination = ?::text
 ORDER BY destination, subscription, instance_id

-- name: admin_select_purges
-- Every purged queue when the parameter is null, else that one.
SELECT name, purged, purges, last_purge_at FROM shardq.purges()
 WHERE ?::text IS NULL OR name = ?::text

-- name: admin_add_subscriber
SELECT shardq.add_subscriber(?, ?, selector => ?::text)

-- name: admin_remove_subscriber
SELECT shardq.remove_subscriber(?, ?, client_id => ?::text, force => ?)

-- name: admin_select_subscriptions
SELECT name, client_id, kind, selector, bit, no_local, consumers, lag, oldest_age_ms,
       holds_retirement, expired_seqs, expired_at, created_at
  FROM shardq.subscriptions(?)

-- name: admin_set_delivery_policy
SELECT shardq.set_delivery_policy(?, expiry_queue => ?::text, redelivery_delay_ms => ?::integer,
       redelivery_multiplier => ?::real, message_groups => ?::boolean)

-- name: admin_grant
SELECT shardq.grant(?, ?, ?)

-- name: admin_revoke
SELECT shardq.revoke(?, ?, ?)

-- name: admin_select_grants
SELECT role_name, privilege FROM shardq.grants(?)

-- name: admin_select_instances
-- Instances not stopped whose heartbeat is at most ? seconds old.
SELECT id, name, started_at, heartbeat_age_ms, shards_owned, leases_held
  FROM shardq.instances(alive_within_seconds => ?)

-- name: admin_select_temporary_destinations
SELECT name, kind, instance_id, instance_name, connection_id, created_at, owner_alive
  FROM shardq.temporary_destinations()

-- name: admin_select_leases
SELECT shard_no, subscription, instance_id, instance_name, lease_until, live FROM shardq.leases(?)

-- name: admin_create_cache
SELECT shardq.create_cache(?, durable => ?, default_ttl_ms => ?::bigint, max_ttl_ms => ?::bigint,
       max_entries => ?::bigint, max_bytes => ?::bigint, max_key_bytes => ?, max_value_bytes => ?,
       if_not_exists => ?)

-- name: admin_alter_cache
SELECT shardq.alter_cache(?, default_ttl_ms => ?::bigint, max_entries => ?::bigint,
       max_bytes => ?::bigint, max_key_bytes => ?::integer, max_value_bytes => ?::integer)

-- name: admin_drop_cache
SELECT shardq.drop_cache(?)

-- name: admin_select_cache_stats
SELECT entries, bytes, expired_unreclaimed, evictions, expirations FROM shardq.cache_stats(?)

-- name: admin_select_caches
-- Every cache when the parameter is null, else that one.
SELECT id, name, durable, default_ttl_ms, max_ttl_ms, max_entries, max_bytes, bucket_ms, max_key_bytes,
       max_value_bytes, entries_estimate, bytes, partitions, evictions, expirations, created_at
  FROM shardq.caches(?::text)

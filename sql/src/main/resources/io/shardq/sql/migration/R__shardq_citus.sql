-- ShardQ on a Citus coordinator (docs/design/citus.md). Nothing here runs on a single server:
-- Migrations calls shardq.citus_distribute() after the migrations only where the citus extension
-- is installed in the database.

-- True when the catalog has been distributed over a Citus cluster (shardq.shard is a distributed
-- table). Read by the DDL functions (create_queue, add_slot, ...), never by the hot path.
CREATE OR REPLACE FUNCTION shardq.on_citus() RETURNS boolean
LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_on boolean;
BEGIN
    IF pg_catalog.to_regclass('pg_catalog.pg_dist_partition') IS NULL THEN
        RETURN false;
    END IF;
    EXECUTE 'SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition WHERE logicalrelid = ''shardq.shard''::regclass)'
       INTO v_on;
    RETURN v_on;
END $$;

-- True when destination p_destination's messages use the one-level layout: shardq.m_<id>
-- partitioned by RANGE (shard_no, slot), one leaf per (shard, slot) and no per-shard table in
-- between. Citus cannot distribute a partitioned table of two levels, so destinations created on
-- Citus use it; a single server keeps the two levels (m_<id> by shard, m_<id>_<shard> by slot).
CREATE OR REPLACE FUNCTION shardq.flat_layout(p_destination integer) RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT coalesce((SELECT p.partnatts = 2 FROM pg_catalog.pg_partitioned_table p
                      WHERE p.partrelid = pg_catalog.to_regclass(format('shardq.%I', 'm_' || p_destination))), false)
$$;

-- Whether a catalog trigger fired on table p_table should act here. On one server always. On Citus
-- a reference table's triggers fire on each node's copy (p_table is then "<table>_<shard id>"):
-- only the coordinator's copy acts, once, where the JVMs LISTEN (a NOTIFY on a worker would reach
-- nobody, and Citus cannot PREPARE a transaction that notified).
CREATE OR REPLACE FUNCTION shardq.catalog_trigger_here(p_table name) RETURNS boolean
LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_group integer;
BEGIN
    IF p_table IN ('destination', 'subscription') OR pg_catalog.to_regclass('pg_catalog.pg_dist_local_group') IS NULL THEN
        RETURN true;
    END IF;
    EXECUTE 'SELECT groupid FROM pg_catalog.pg_dist_local_group' INTO v_group;
    RETURN v_group = 0;
END $$;

-- V002's trigger function, acting once on Citus (catalog_trigger_here)
CREATE OR REPLACE FUNCTION shardq.destination_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NOT shardq.catalog_trigger_here(TG_TABLE_NAME) THEN
        RETURN NULL;
    END IF;
    IF TG_OP <> 'INSERT' THEN
        PERFORM pg_notify('shardq_catalog', OLD.name);
    END IF;
    IF TG_OP <> 'DELETE' THEN
        PERFORM pg_notify('shardq_catalog', NEW.name);
    END IF;
    RETURN NULL;
END $$;

-- V005's trigger function, acting once on Citus (catalog_trigger_here)
CREATE OR REPLACE FUNCTION shardq.subscription_deleted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF shardq.catalog_trigger_here(TG_TABLE_NAME) THEN
        DELETE FROM shardq.dequeue_range WHERE subscription_id = OLD.id;
    END IF;
    RETURN OLD;
END $$;

-- On Citus, makes the calling transaction run its multi-shard statements over one connection per
-- worker, as Citus requires of a transaction that then writes a reference or coordinator table
-- (a purge truncates leaves, then deletes streamed bodies). citus_distribute sets it for every new
-- session of the database; this covers sessions opened before that (a pool from before the
-- migration). Nothing on one server.
CREATE OR REPLACE FUNCTION shardq.citus_sequential() RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF shardq.on_citus() THEN
        PERFORM set_config('citus.multi_shard_modify_mode', 'sequential', true);
    END IF;
END $$;

-- The coordinator's own tables that ShardQ's statements join with a reference table: Citus plans
-- such a join on the coordinator only when the table is in its metadata (a "Citus local table");
-- a plain table is unknown to the workers Citus would route the join to. Tables with a foreign key
-- to a reference table became Citus local tables by it; these have none.
CREATE OR REPLACE FUNCTION shardq.citus_local_tables() RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
    v_known boolean;
BEGIN
    EXECUTE 'SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition WHERE logicalrelid = ''shardq.kv_load_failure''::regclass)'
       INTO v_known;
    IF v_known THEN
        RETURN '{}';
    END IF;
    PERFORM citus_add_local_table_to_metadata('shardq.kv_load_failure');
    RETURN ARRAY['kv_load_failure (coordinator, in Citus''s metadata)'];
END $$;

-- Bytes (with indexes and TOAST) and dead tuples of destination p_destination's message tables,
-- of shard p_shard only when given: what `queue stats`, `topic stats` and the console show. On
-- one server from the leaves' own statistics; on Citus from the workers, where the rows are (the
-- coordinator's leaves are empty shells): one command per worker over its placements, named
-- <leaf>_<Citus shard id>.
CREATE OR REPLACE FUNCTION shardq.leaf_stats(p_destination integer, p_shard integer DEFAULT NULL)
RETURNS TABLE (bytes bigint, dead_tuples bigint)
LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_pattern text;
BEGIN
    IF NOT shardq.on_citus() THEN  -- two levels: m_<id>, then m_<id>_<shard> by slot
        RETURN QUERY
        SELECT coalesce(sum(pg_catalog.pg_total_relation_size(t.relid)), 0)::bigint,
               coalesce(sum(s.n_dead_tup), 0)::bigint
          FROM pg_catalog.pg_partition_tree(format('shardq.%I', 'm_' || p_destination || coalesce('_' || p_shard, ''))::regclass) t
          LEFT JOIN pg_catalog.pg_stat_user_tables s ON s.relid = t.relid
         WHERE t.isleaf;
        RETURN;
    END IF;
    v_pattern := format('^m_%s_%s_[0-9]+_[0-9]+$', p_destination, coalesce(p_shard::text, '[0-9]+'));
    EXECUTE $q$
        SELECT coalesce(sum(split_part(r.result, ',', 1)::bigint), 0), coalesce(sum(split_part(r.result, ',', 2)::bigint), 0)
          FROM run_command_on_workers(format(
               'SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) || '','' || coalesce(sum(s.n_dead_tup), 0)'
               ' FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace'
               ' LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid'
               ' WHERE n.nspname = %L AND c.relkind = %L AND c.relname ~ %L', 'shardq', 'r', $1)) r
         WHERE r.success
    $q$ INTO bytes, dead_tuples USING v_pattern;
    RETURN NEXT;
END $$;

-- Gives the catalog its Citus kinds; run by `shardq migrate` on a Citus coordinator, again
-- harmless (a table that has its kind is left alone).
-- * distributed by shard_no, co-located with shardq.shard: shard, slice, cursor,
--   delivery_attempt, dequeue_range, and each destination's message table (create_queue), so
--   every row of one shard number lives on one worker;
-- * reference tables (a copy on every node): destination, subscription, kv_cache;
-- * the rest stays on the coordinator (Citus adds those with a foreign key to a reference table
--   to its metadata as local tables).
-- Citus keeps a foreign key only where it can check it where the rows live: every foreign key of
-- the schema is dropped while the tables change kind and put back afterwards (each is one Citus
-- accepts: distributed to reference, distributed to co-located distributed, local to reference).
CREATE OR REPLACE FUNCTION shardq.citus_distribute(p_shard_count integer DEFAULT NULL) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    v_fk record;
    v_fks text[] := '{}';
    v_t text;
    v_workers integer;
    v_count integer;
    v_done text[] := '{}';
BEGIN
    IF pg_catalog.to_regclass('pg_catalog.pg_dist_partition') IS NULL THEN
        RAISE EXCEPTION 'the citus extension is not installed in database "%": shardq.citus_distribute() runs on a Citus coordinator',
            current_database() USING ERRCODE = '0A000';
    END IF;
    IF shardq.on_citus() THEN
        v_done := shardq.citus_local_tables();  -- a database distributed before it was added
        RETURN CASE WHEN cardinality(v_done) = 0 THEN 'already distributed'
                    ELSE 'already distributed; now ' || array_to_string(v_done, ', ') END;
    END IF;
    EXECUTE 'SELECT count(*) FROM pg_catalog.pg_dist_node WHERE groupid = 0' INTO v_count;
    IF v_count = 0 THEN
        RAISE EXCEPTION 'the Citus coordinator is not in its own metadata: run SELECT citus_set_coordinator_host(<host>, <port>) first'
            USING ERRCODE = '55000',
                  HINT = 'ShardQ''s catalog tables join the coordinator''s own tables and its notifications come from the coordinator''s copy of the reference tables';
    END IF;
    EXECUTE 'SELECT count(*) FROM pg_catalog.pg_dist_node WHERE groupid <> 0 AND isactive AND noderole = ''primary'''
       INTO v_workers;
    IF EXISTS (SELECT 1 FROM shardq.destination) THEN
        RAISE EXCEPTION 'shardq.citus_distribute() must run before any destination is created: % exist(s) in the single-server layout',
            (SELECT count(*) FROM shardq.destination) USING ERRCODE = '55000',
            HINT = 'run shardq migrate on the Citus coordinator before creating queues, topics or caches there';
    END IF;
    IF EXISTS (SELECT 1 FROM shardq.kv_cache) THEN
        RAISE EXCEPTION 'shardq.citus_distribute() must run before any key/value cache is created' USING ERRCODE = '55000';
    END IF;
    -- one connection per worker for the whole transaction: the reference tables' foreign keys need it
    PERFORM set_config('citus.multi_shard_modify_mode', 'sequential', true);
    -- the catalog's triggers (destination_notify, subscription_deleted) are kept
    PERFORM set_config('citus.enable_unsafe_triggers', 'on', true);
    FOR v_fk IN SELECT c.conname, c.conrelid::regclass AS tbl, pg_catalog.pg_get_constraintdef(c.oid) AS def
                  FROM pg_catalog.pg_constraint c JOIN pg_catalog.pg_namespace n ON n.oid = c.connamespace
                 WHERE n.nspname = 'shardq' AND c.contype = 'f' ORDER BY c.conname LOOP
        v_fks := v_fks || format('ALTER TABLE %s ADD CONSTRAINT %I %s', v_fk.tbl, v_fk.conname, v_fk.def);
        EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', v_fk.tbl, v_fk.conname);
    END LOOP;
    FOREACH v_t IN ARRAY ARRAY['destination', 'subscription', 'kv_cache'] LOOP
        EXECUTE 'SELECT create_reference_table($1)' USING 'shardq.' || v_t;
        v_done := v_done || (v_t || ' (reference)');
    END LOOP;
    -- shard numbers run 0..255: a few Citus shards per worker spread them, more only make empty tables
    v_count := coalesce(p_shard_count, greatest(2, 2 * v_workers));
    EXECUTE 'SELECT create_distributed_table(''shardq.shard'', ''shard_no'', colocate_with => ''none'', shard_count => $1)'
      USING v_count;
    v_done := v_done || format('shard (by shard_no, %s Citus shards)', v_count);
    FOREACH v_t IN ARRAY ARRAY['slice', 'cursor', 'delivery_attempt', 'dequeue_range'] LOOP
        EXECUTE 'SELECT create_distributed_table($1, ''shard_no'', colocate_with => ''shardq.shard'')' USING 'shardq.' || v_t;
        v_done := v_done || (v_t || ' (by shard_no)');
    END LOOP;
    FOREACH v_t IN ARRAY v_fks LOOP
        EXECUTE v_t;
    END LOOP;
    v_done := v_done || shardq.citus_local_tables();
    -- every session: a multi-shard statement over one connection per worker, as Citus requires in a
    -- transaction that then writes a reference table (a topic's subscription change, alter_queue)
    EXECUTE format('ALTER DATABASE %I SET citus.multi_shard_modify_mode = %L', current_database(), 'sequential');
    RETURN 'distributed over ' || v_workers || ' worker(s): ' || array_to_string(v_done, ', ');
END $$;

-- The lease statements on Citus. On one server each is one statement over every shard, its rows
-- taken FOR UPDATE SKIP LOCKED (a row a commit or a prepared transaction holds is left for the next
-- round, never waited for). Citus refuses a row lock in a statement over several of its shards,
-- and a plain multi-shard UPDATE would wait, and deadlock with a consumer commit over two shards.
-- So on Citus the JVM calls these functions instead (the broker's *_citus statements): one round
-- trip, and in it one statement per shard number, each of which Citus routes to one worker with
-- its SKIP LOCKED intact. Same parameters and results as the statement each replaces. They work on
-- one server too, where QueriesTest and CitusFunctionsTest run them.

-- cursor_lease_expire_dead
CREATE OR REPLACE FUNCTION shardq.citus_lease_expire_dead(p_me bigint, p_ttl double precision)
RETURNS TABLE (lease_instance bigint, subscription_id bigint, shard_no integer)
LANGUAGE plpgsql AS $$
DECLARE
    v_dead bigint[];
    v_shard integer;
BEGIN
    v_dead := ARRAY(SELECT i.id FROM shardq.instance i
                     WHERE i.session_lock AND i.stopped_at IS NULL AND i.id <> p_me
                       AND i.id NOT IN (SELECT shardq.live_instances(p_ttl)));
    IF cardinality(v_dead) = 0 THEN
        RETURN;
    END IF;
    FOR v_shard IN SELECT DISTINCT c.shard_no FROM shardq.cursor c
                    WHERE c.lease_instance = ANY(v_dead) AND c.lease_until > now() ORDER BY 1 LOOP
        RETURN QUERY
        UPDATE shardq.cursor u SET lease_until = now()
         WHERE u.shard_no = v_shard AND (u.subscription_id, u.shard_no) IN (
               SELECT c.subscription_id, c.shard_no FROM shardq.cursor c
                WHERE c.shard_no = v_shard AND c.lease_until > now() AND c.lease_instance = ANY(v_dead)
                  FOR UPDATE SKIP LOCKED)
        RETURNING u.lease_instance, u.subscription_id, u.shard_no;
    END LOOP;
END $$;

-- cursor_lease_acquire (p_skip_locked false) and cursor_lease_acquire_skip_locked (true)
CREATE OR REPLACE FUNCTION shardq.citus_lease_acquire(
    p_subscription bigint, p_shards integer[], p_me bigint, p_holder bigint, p_ttl double precision,
    p_me_again bigint, p_skip_locked boolean)
RETURNS TABLE (shard_no integer, lease_position bigint, head bigint, lease_seq bigint)
LANGUAGE plpgsql AS $$
DECLARE
    v_shard integer;
BEGIN
    FOR v_shard IN SELECT DISTINCT s FROM unnest(p_shards) s ORDER BY 1 LOOP
        IF p_skip_locked THEN
            PERFORM 1 FROM shardq.cursor c
             WHERE c.subscription_id = p_subscription AND c.shard_no = v_shard
               AND (c.lease_instance IS NULL OR c.lease_instance = p_me OR c.lease_until < now())
               FOR UPDATE SKIP LOCKED;
        ELSE
            PERFORM 1 FROM shardq.cursor c
             WHERE c.subscription_id = p_subscription AND c.shard_no = v_shard
               AND (c.lease_instance IS NULL OR c.lease_instance = p_me OR c.lease_until < now())
               FOR UPDATE;
        END IF;
        CONTINUE WHEN NOT FOUND;
        RETURN QUERY
        UPDATE shardq.cursor c
           SET lease_instance = p_holder, lease_until = now() + make_interval(secs => p_ttl), lease_seq = c.lease_seq + 1
          FROM shardq.shard s
         WHERE c.subscription_id = p_subscription AND c.shard_no = v_shard
           AND s.destination_id = c.destination_id AND s.shard_no = v_shard
           AND (c.lease_instance IS NULL OR c.lease_instance = p_me_again OR c.lease_until < now())
        RETURNING c.shard_no, c.position, least(s.next_seq, s.fence), c.lease_seq;
    END LOOP;
END $$;

-- cursor_lease_renew
CREATE OR REPLACE FUNCTION shardq.citus_lease_renew(p_ttl double precision, p_me bigint, p_below double precision)
RETURNS TABLE (subscription_id bigint, shard_no integer)
LANGUAGE plpgsql AS $$
DECLARE
    v_shard integer;
BEGIN
    FOR v_shard IN SELECT DISTINCT c.shard_no FROM shardq.cursor c WHERE c.lease_instance = p_me ORDER BY 1 LOOP
        RETURN QUERY
        UPDATE shardq.cursor u SET lease_until = now() + make_interval(secs => p_ttl)
         WHERE u.shard_no = v_shard AND (u.subscription_id, u.shard_no) IN (
               SELECT c.subscription_id, c.shard_no FROM shardq.cursor c
                WHERE c.shard_no = v_shard AND c.lease_instance = p_me
                  AND c.lease_until < now() + make_interval(secs => p_below)
                  FOR UPDATE SKIP LOCKED)
        RETURNING u.subscription_id, u.shard_no;
    END LOOP;
END $$;

-- cursor_lease_release (p_shards given) and cursor_lease_release_all (p_shards null); returns the
-- rows released
CREATE OR REPLACE FUNCTION shardq.citus_lease_release(p_subscription bigint, p_shards integer[], p_me bigint)
RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    v_shard integer;
    v_n integer;
    v_total integer := 0;
BEGIN
    FOR v_shard IN SELECT DISTINCT c.shard_no FROM shardq.cursor c
                    WHERE c.lease_instance = p_me
                      AND (p_subscription IS NULL OR c.subscription_id = p_subscription)
                      AND (p_shards IS NULL OR c.shard_no = ANY(p_shards)) ORDER BY 1 LOOP
        UPDATE shardq.cursor u SET lease_instance = NULL, lease_until = NULL
         WHERE u.shard_no = v_shard AND (u.subscription_id, u.shard_no) IN (
               SELECT c.subscription_id, c.shard_no FROM shardq.cursor c
                WHERE c.shard_no = v_shard AND c.lease_instance = p_me
                  AND (p_subscription IS NULL OR c.subscription_id = p_subscription)
                  FOR UPDATE SKIP LOCKED);
        GET DIAGNOSTICS v_n = ROW_COUNT;
        v_total := v_total + v_n;
    END LOOP;
    RETURN v_total;
END $$;

-- cursor_lease_fence_all; returns the rows fenced
CREATE OR REPLACE FUNCTION shardq.citus_lease_fence_all(p_me bigint)
RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    v_shard integer;
    v_n integer;
    v_total integer := 0;
BEGIN
    FOR v_shard IN SELECT DISTINCT c.shard_no FROM shardq.cursor c WHERE c.lease_instance = p_me ORDER BY 1 LOOP
        UPDATE shardq.cursor u SET lease_seq = u.lease_seq + 1
         WHERE u.shard_no = v_shard AND (u.subscription_id, u.shard_no) IN (
               SELECT c.subscription_id, c.shard_no FROM shardq.cursor c
                WHERE c.shard_no = v_shard AND c.lease_instance = p_me FOR UPDATE SKIP LOCKED);
        GET DIAGNOSTICS v_n = ROW_COUNT;
        v_total := v_total + v_n;
    END LOOP;
    RETURN v_total;
END $$;

-- shard_release_owner; returns the rows released
CREATE OR REPLACE FUNCTION shardq.citus_release_owner(p_me bigint)
RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    v_shard integer;
    v_n integer;
    v_total integer := 0;
BEGIN
    FOR v_shard IN SELECT DISTINCT s.shard_no FROM shardq.shard s WHERE s.owner_instance = p_me ORDER BY 1 LOOP
        UPDATE shardq.shard u SET owner_instance = NULL
         WHERE u.shard_no = v_shard AND (u.destination_id, u.shard_no) IN (
               SELECT s.destination_id, s.shard_no FROM shardq.shard s
                WHERE s.shard_no = v_shard AND s.owner_instance = p_me FOR UPDATE SKIP LOCKED);
        GET DIAGNOSTICS v_n = ROW_COUNT;
        v_total := v_total + v_n;
    END LOOP;
    RETURN v_total;
END $$;

-- cursor_commit_move, the consumer commit: on Citus its data-modifying CTEs run as several steps
-- through the coordinator, so here it is four statements, each routed to the shard's worker (the
-- log's INSERT reads the cursor row, which co-locates it). Same parameters, same four counts.
CREATE OR REPLACE FUNCTION shardq.citus_commit_move(
    p_to bigint, p_subscription bigint, p_shard integer, p_from bigint, p_instance bigint, p_lease_seq bigint,
    p_firsts bigint[], p_lasts bigint[], p_clear_log boolean, p_clear_attempts boolean)
RETURNS TABLE (moved bigint, logged bigint, cleared bigint, attempts bigint)
LANGUAGE plpgsql AS $$
BEGIN
    logged := 0; cleared := 0; attempts := 0;
    UPDATE shardq.cursor c SET position = p_to
     WHERE c.subscription_id = p_subscription AND c.shard_no = p_shard AND c.position = p_from
       AND c.lease_instance = p_instance AND c.lease_seq = p_lease_seq;
    GET DIAGNOSTICS moved = ROW_COUNT;
    IF moved = 0 THEN
        RETURN NEXT;
        RETURN;
    END IF;
    IF cardinality(p_firsts) > 0 THEN
        INSERT INTO shardq.dequeue_range (subscription_id, shard_no, first_seq, last_seq)
        SELECT c.subscription_id, c.shard_no, x.first_seq, x.last_seq
          FROM shardq.cursor c, unnest(p_firsts, p_lasts) AS x (first_seq, last_seq)
         WHERE c.subscription_id = p_subscription AND c.shard_no = p_shard;
        GET DIAGNOSTICS logged = ROW_COUNT;
    END IF;
    IF p_clear_log THEN
        DELETE FROM shardq.dequeue_range l
         WHERE l.subscription_id = p_subscription AND l.shard_no = p_shard AND l.last_seq <= p_to;
        GET DIAGNOSTICS cleared = ROW_COUNT;
    END IF;
    IF p_clear_attempts THEN
        DELETE FROM shardq.delivery_attempt a
         WHERE a.subscription_id = p_subscription AND a.shard_no = p_shard AND a.seq <= p_to;
        GET DIAGNOSTICS attempts = ROW_COUNT;
    END IF;
    RETURN NEXT;
END $$;

-- R__shardq_admin: administration as SQL functions, like Oracle's DBMS_AQADM, so psql users
-- can administer ShardQ too:  select shardq.create_queue('orders', shards => 8);
-- Repeatable migration: Flyway re-applies it whenever this file changes, so every function
-- here is CREATE OR REPLACE and must stay backward compatible in its signature.
-- Names are validated by shardq.check_name and never reach SQL text: message tables are named
-- from numeric ids (shardq.m_<destination>_<shard>_<slot>) and still quoted with %I.

CREATE OR REPLACE FUNCTION shardq.check_name(p_name text) RETURNS void
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    IF p_name IS NULL OR p_name !~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$' THEN
        RAISE EXCEPTION 'destination name "%" is invalid: expected 1 to 64 characters from [A-Za-z0-9_.-], starting with a letter or digit', p_name
            USING ERRCODE = '22023', SCHEMA = 'shardq', TABLE = 'destination', COLUMN = 'name';
    END IF;
END $$;

CREATE OR REPLACE FUNCTION shardq.destination_id(p_name text) RETURNS integer
LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_id integer;
BEGIN
    SELECT id INTO v_id FROM shardq.destination WHERE name = p_name;
    IF v_id IS NULL THEN
        RAISE EXCEPTION 'destination "%" does not exist', p_name
            USING ERRCODE = '42704', SCHEMA = 'shardq', TABLE = 'destination';
    END IF;
    RETURN v_id;
END $$;

-- Who is calling an admin function: the role of SET ROLE, else the session's login role. Inside a
-- SECURITY DEFINER function current_user is the function's owner, so it cannot say who called;
-- the role setting and session_user can, and neither can be set to a role the caller is not a
-- member of.
CREATE OR REPLACE FUNCTION shardq.calling_role() RETURNS name
LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN current_setting('role') = 'none' THEN session_user ELSE current_setting('role')::name END
$$;

-- The destination privileges and the table privileges on shardq.m_<id> that make them (see V004
-- and docs/architecture.md, "Authorization"). receive includes browse: receiving shows the
-- messages, so it needs SELECT as well, and revoking either takes both away.
CREATE OR REPLACE FUNCTION shardq.check_privilege(p_privilege text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    IF p_privilege IS NULL OR lower(p_privilege) NOT IN ('send', 'receive', 'browse', 'administer') THEN
        RAISE EXCEPTION 'privilege "%" is invalid: expected send, receive, browse or administer', left(p_privilege, 120)
            USING ERRCODE = '22023';
    END IF;
    RETURN lower(p_privilege);
END $$;

CREATE OR REPLACE FUNCTION shardq.check_role(p_role text) RETURNS void
LANGUAGE plpgsql STABLE AS $$
BEGIN
    IF p_role IS NULL OR NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = p_role) THEN
        -- 22023 (invalid_parameter_value), not 42704: callers read 42704 as an unknown destination
        RAISE EXCEPTION 'role "%" does not exist: expected an existing PostgreSQL role (CREATE ROLE ... LOGIN; nothing is granted to PUBLIC)',
            left(p_role, 120) USING ERRCODE = '22023';
    END IF;
END $$;

-- True when p_role holds p_privilege on destination p_destination (false for an unknown role).
-- The table's owner and superusers hold every privilege. ShardQ's JMS layer asks the same
-- question (destination_select_privileges in the broker's destination.sql).
CREATE OR REPLACE FUNCTION shardq.has_privilege(p_role text, p_destination integer, p_privilege text) RETURNS boolean
LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_role oid;
    v_table oid := pg_catalog.to_regclass(format('shardq.%I', 'm_' || p_destination));
BEGIN
    SELECT oid INTO v_role FROM pg_catalog.pg_roles WHERE rolname = p_role;
    IF v_role IS NULL OR v_table IS NULL THEN
        RETURN false;
    END IF;
    RETURN CASE shardq.check_privilege(p_privilege)
        WHEN 'send' THEN pg_catalog.has_table_privilege(v_role, v_table, 'INSERT')
        WHEN 'browse' THEN pg_catalog.has_table_privilege(v_role, v_table, 'SELECT')
        WHEN 'receive' THEN pg_catalog.has_table_privilege(v_role, v_table, 'SELECT')
                        AND pg_catalog.has_table_privilege(v_role, v_table, 'DELETE')
        WHEN 'administer' THEN pg_catalog.has_table_privilege(v_role, v_table, 'TRUNCATE')
    END;
END $$;

-- The id of destination p_name when the calling role may administer it; otherwise a clear
-- refusal (SQLSTATE 42501) instead of the raw "permission denied for table ..." of whatever
-- statement would have failed first. SECURITY DEFINER: the caller may not read the catalog.
CREATE OR REPLACE FUNCTION shardq.require_administer(p_name text, p_action text) RETURNS integer
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    v_id integer;
    v_role name := shardq.calling_role();
BEGIN
    PERFORM shardq.check_name(p_name);
    v_id := shardq.destination_id(p_name);
    IF NOT shardq.has_privilege(v_role, v_id, 'administer') THEN
        RAISE EXCEPTION 'role "%" may not % destination "%": it needs the administer privilege on it (shardq.grant(''%'', ''%'', ''administer''), run by its owner or an administrator of it)',
            v_role, p_action, p_name, p_name, v_role USING ERRCODE = '42501';
    END IF;
    RETURN v_id;
END $$;

-- Creating, dropping and altering destinations is DDL on the shardq schema: only its owner (or a
-- member of the owning role, or a superuser) may, and everyone else gets this clear refusal.
CREATE OR REPLACE FUNCTION shardq.require_owner(p_action text, p_name text) RETURNS void
LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_role name := shardq.calling_role();
    v_owner name := (SELECT n.nspowner::regrole::name FROM pg_catalog.pg_namespace n WHERE n.nspname = 'shardq');
BEGIN
    IF NOT pg_catalog.pg_has_role(v_role, v_owner, 'USAGE') THEN
        RAISE EXCEPTION 'role "%" may not % "%": only the owner of the shardq schema ("%") may', v_role, p_action, left(p_name, 120), v_owner
            USING ERRCODE = '42501';
    END IF;
END $$;

-- Holds every shard row of destination p_destination until the transaction ends, in shard order
-- (so two holders never deadlock), waiting for the enqueues in flight there. One statement per
-- shard: Citus locks rows only in a statement that touches one of its shards.
CREATE OR REPLACE FUNCTION shardq.lock_shards(p_destination integer) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_shard integer;
BEGIN
    FOR v_shard IN SELECT s.shard_no FROM shardq.shard s WHERE s.destination_id = p_destination ORDER BY 1 LOOP
        PERFORM 1 FROM shardq.shard s WHERE s.destination_id = p_destination AND s.shard_no = v_shard FOR UPDATE;
    END LOOP;
END $$;

-- Adds one leaf partition (slot) to a shard and returns its slot number. DDL: called at
-- creation, by the background slice preparer, and by enqueue only when no free slot is left.
-- Locking matters here: CREATE TABLE ... PARTITION OF would need ACCESS EXCLUSIVE on the shard's
-- table, which conflicts with every enqueue and dequeue of the shard (and deadlocks with an
-- enqueue statement that holds the table while it waits for the shard row). So the slot is
-- created standalone and ATTACHed, which takes only SHARE UPDATE EXCLUSIVE on the shard's table:
-- that conflicts with itself (slot creation per shard is serialised, two instances never pick
-- the same number) but not with reads and writes.
CREATE OR REPLACE FUNCTION shardq.add_slot(p_destination integer, p_shard integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    v_slot integer;
    v_mid text := 'm_' || p_destination || '_' || p_shard;
    v_leaf text;
BEGIN
    IF shardq.flat_layout(p_destination) THEN
        -- one level (Citus): the leaf hangs from the destination's table, and slot creation is
        -- serialised per destination instead of per shard. The primary key holds shard_no, the
        -- distribution column, after seq, so a range of seq still reads the index.
        EXECUTE format('LOCK TABLE shardq.%I IN SHARE UPDATE EXCLUSIVE MODE', 'm_' || p_destination);
        SELECT coalesce(max(slot) + 1, 0) INTO v_slot
          FROM shardq.slice WHERE destination_id = p_destination AND shard_no = p_shard;
        v_leaf := v_mid || '_' || v_slot;
        EXECUTE format('CREATE TABLE shardq.%I (LIKE shardq.%I, PRIMARY KEY (seq, shard_no), CHECK (shard_no = %s AND slot = %s))'
                       ' WITH (autovacuum_enabled = false, toast.autovacuum_enabled = false)',
                       v_leaf, 'm_' || p_destination, p_shard, v_slot);
        EXECUTE format('ALTER TABLE shardq.%I ATTACH PARTITION shardq.%I FOR VALUES FROM (%s, %s) TO (%s, %s)',
                       'm_' || p_destination, v_leaf, p_shard, v_slot, p_shard, v_slot + 1);
        INSERT INTO shardq.slice (destination_id, shard_no, slot) VALUES (p_destination, p_shard, v_slot);
        RETURN v_slot;
    END IF;
    EXECUTE format('LOCK TABLE shardq.%I IN SHARE UPDATE EXCLUSIVE MODE', v_mid);
    SELECT coalesce(max(slot) + 1, 0) INTO v_slot
      FROM shardq.slice WHERE destination_id = p_destination AND shard_no = p_shard;
    v_leaf := v_mid || '_' || v_slot;
    EXECUTE format('CREATE TABLE shardq.%I (LIKE shardq.%I, PRIMARY KEY (seq), CHECK (slot = %s))'
                   ' WITH (autovacuum_enabled = false, toast.autovacuum_enabled = false)',
                   v_leaf, v_mid, v_slot);
    EXECUTE format('ALTER TABLE shardq.%I ATTACH PARTITION shardq.%I FOR VALUES IN (%s)', v_mid, v_leaf, v_slot);
    INSERT INTO shardq.slice (destination_id, shard_no, slot) VALUES (p_destination, p_shard, v_slot);
    RETURN v_slot;
END $$;

CREATE OR REPLACE FUNCTION shardq.add_shard(p_destination integer, p_shard integer, p_slots integer DEFAULT 3)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_sub record;
BEGIN
    INSERT INTO shardq.shard (destination_id, shard_no) VALUES (p_destination, p_shard);
    IF NOT shardq.flat_layout(p_destination) THEN
        EXECUTE format('CREATE TABLE shardq.%I PARTITION OF shardq.%I FOR VALUES IN (%s) PARTITION BY LIST (slot)',
                       'm_' || p_destination || '_' || p_shard, 'm_' || p_destination, p_shard);
    END IF;
    FOR i IN 1..p_slots LOOP
        PERFORM shardq.add_slot(p_destination, p_shard);
    END LOOP;
    FOR v_sub IN SELECT id FROM shardq.subscription WHERE destination_id = p_destination LOOP
        INSERT INTO shardq.cursor (subscription_id, destination_id, shard_no) VALUES (v_sub.id, p_destination, p_shard);
    END LOOP;
END $$;

-- Creates a queue (or, with kind => 'topic', a topic) and returns its id. With
-- if_not_exists => true an existing destination of the same kind is returned instead.
CREATE OR REPLACE FUNCTION shardq.create_queue(
    name text,
    shards integer DEFAULT 4,
    slice_size integer DEFAULT 20000,
    max_attempts integer DEFAULT 5,
    kind text DEFAULT 'queue',
    if_not_exists boolean DEFAULT false)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    v_id integer;
    v_kind text;
    v_sub bigint;
BEGIN
    PERFORM shardq.check_name(name);
    PERFORM shardq.require_owner('create', name);
    IF shards IS NULL OR shards < 1 OR shards > 256 THEN
        RAISE EXCEPTION 'shard count % is invalid: expected 1 to 256', shards USING ERRCODE = '22023';
    END IF;
    IF slice_size IS NULL OR slice_size < 16 OR slice_size > 100000000 THEN
        RAISE EXCEPTION 'slice size % is invalid: expected 16 to 100000000 messages', slice_size USING ERRCODE = '22023';
    END IF;
    IF max_attempts IS NULL OR max_attempts < 1 THEN
        RAISE EXCEPTION 'max attempts % is invalid: expected 1 or more', max_attempts USING ERRCODE = '22023';
    END IF;
    IF kind NOT IN ('queue', 'topic') THEN
        RAISE EXCEPTION 'kind "%" is invalid: expected queue or topic', kind USING ERRCODE = '22023';
    END IF;
    -- serialise concurrent creators of the same name (auto-create from several sessions)
    PERFORM pg_advisory_xact_lock(hashtext('shardq.create_queue'), hashtext(create_queue.name));
    SELECT d.id, d.kind INTO v_id, v_kind FROM shardq.destination d WHERE d.name = create_queue.name;
    IF v_id IS NOT NULL THEN
        IF if_not_exists AND v_kind = kind THEN
            RETURN v_id;
        END IF;
        RAISE EXCEPTION '% "%" already exists', v_kind, name
            USING ERRCODE = '42710', SCHEMA = 'shardq', TABLE = 'destination';
    END IF;
    INSERT INTO shardq.destination (name, kind, shard_count, slice_size, max_attempts)
         VALUES (create_queue.name, create_queue.kind, create_queue.shards, create_queue.slice_size, create_queue.max_attempts)
      RETURNING id INTO v_id;
    EXECUTE format('CREATE TABLE shardq.%I ('
                   ' shard_no integer NOT NULL, slot integer NOT NULL, seq bigint NOT NULL,'
                   ' enqueued_at bigint NOT NULL, deliver_at bigint NOT NULL, expires_at bigint NOT NULL,'
                   ' priority smallint NOT NULL, subscribers bytea, header bytea NOT NULL, body bytea NOT NULL,'
                   ' properties jsonb)'
                   ' PARTITION BY %s', 'm_' || v_id, CASE WHEN shardq.on_citus() THEN 'RANGE (shard_no, slot)' ELSE 'LIST (shard_no)' END);
    IF shardq.on_citus() THEN
        -- one level, distributed by shard_no beside the shard's catalog rows (R__shardq_citus.sql)
        EXECUTE 'SELECT create_distributed_table($1, ''shard_no'', colocate_with => ''shardq.shard'')' USING 'shardq.m_' || v_id;
        PERFORM set_config('citus.enable_unsafe_triggers', 'on', true);
    END IF;
    EXECUTE format('COMMENT ON TABLE shardq.%I IS %L', 'm_' || v_id, 'messages of ' || kind || ' ' || name);
    -- raw writes to the table are refused (V004): grants on it are the destination's privileges
    EXECUTE format('CREATE TRIGGER refuse_raw_write BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON shardq.%I'
                   ' FOR EACH STATEMENT EXECUTE FUNCTION shardq.refuse_raw_write()', 'm_' || v_id);
    IF shardq.on_citus() THEN
        -- Citus fires no statement trigger of a distributed table: there row-level security,
        -- forced on the owner too, lets every role read what its grants allow and write nothing
        -- through this table (an INSERT is refused, 42501; an UPDATE or DELETE changes no row).
        -- The engine and the SQL API write the leaves by name, which have no policy.
        EXECUTE format('ALTER TABLE shardq.%I ENABLE ROW LEVEL SECURITY', 'm_' || v_id);
        EXECUTE format('ALTER TABLE shardq.%I FORCE ROW LEVEL SECURITY', 'm_' || v_id);
        EXECUTE format('CREATE POLICY read_only ON shardq.%I FOR SELECT USING (true)', 'm_' || v_id);
    END IF;
    IF kind = 'queue' THEN
        INSERT INTO shardq.subscription (destination_id, name, bit) VALUES (v_id, '', 0) RETURNING id INTO v_sub;
    END IF;
    FOR s IN 0..shards - 1 LOOP
        PERFORM shardq.add_shard(v_id, s);
    END LOOP;
    RETURN v_id;
END $$;

-- Messages waiting: per shard, committed sequence numbers beyond the slowest cursor, less those
-- a consumer already took out of order (shardq.dequeue_range).
-- PL/pgSQL, not SQL, and two statements, not one with a subquery in its select list: Citus plans
-- neither a SQL function's parameters nor such a subquery in a statement over several shards.
CREATE OR REPLACE FUNCTION shardq.backlog(p_name text) RETURNS bigint
LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_id integer := shardq.destination_id(p_name);
    v_beyond bigint;
    v_taken bigint;
BEGIN
    SELECT coalesce(sum(s.next_seq - 1 - coalesce(c.min_position, s.next_seq - 1)), 0) INTO v_beyond
      FROM shardq.shard s
      LEFT JOIN (SELECT cu.destination_id, cu.shard_no, min(cu.position) AS min_position
                   FROM shardq.cursor cu WHERE cu.destination_id = v_id GROUP BY cu.destination_id, cu.shard_no) c
             ON c.destination_id = s.destination_id AND c.shard_no = s.shard_no
     WHERE s.destination_id = v_id;
    SELECT coalesce(sum(l.last_seq - greatest(l.first_seq, cu.position + 1) + 1), 0) INTO v_taken
      FROM shardq.dequeue_range l
      JOIN shardq.subscription sub ON sub.id = l.subscription_id
      JOIN shardq.cursor cu ON cu.subscription_id = l.subscription_id AND cu.shard_no = l.shard_no
     WHERE sub.destination_id = v_id AND l.last_seq > cu.position;
    RETURN (v_beyond - v_taken)::bigint;
END $$;

CREATE OR REPLACE FUNCTION shardq.drop_queue(name text, force boolean DEFAULT false) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_id integer;
    v_backlog bigint;
BEGIN
    PERFORM shardq.check_name(name);
    PERFORM shardq.require_owner('drop', name);
    v_id := shardq.destination_id(name);
    v_backlog := shardq.backlog(name);
    IF v_backlog > 0 AND NOT force THEN
        RAISE EXCEPTION '% "%" is not empty: % message(s) waiting; drop it with force => true',
            (SELECT d.kind FROM shardq.destination d WHERE d.id = v_id), name, v_backlog
            USING ERRCODE = '55000';
    END IF;
    PERFORM shardq.citus_sequential();
    EXECUTE format('DROP TABLE shardq.%I CASCADE', 'm_' || v_id);
    DELETE FROM shardq.destination WHERE id = v_id;
END $$;

-- Shrinking (V015). Shards p_shards and above of destination p_id become draining: under their
-- row locks (which waits for the enqueues in flight there to commit) each records its head as its
-- drain head, which the shard_draining_frozen CHECK then keeps, and gives up its enqueue owner;
-- every active shard records its next sequence number as its fence (consumers see nothing at or
-- beyond it until the draining shards are empty: shrink_lift). Message groups of draining shards
-- move to active shards (group_map); their messages beyond the fences wait for the same lift, so
-- a group's order and its one consumer at a time hold. The shard count stays until the
-- maintenance leader retires the drained shards (shrink_step).
CREATE OR REPLACE FUNCTION shardq.begin_shrink(p_id integer, p_shards integer)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_old integer;
BEGIN
    SELECT shard_count INTO v_old FROM shardq.destination WHERE id = p_id;
    PERFORM shardq.lock_shards(p_id);
    UPDATE shardq.shard s SET drain_head = s.next_seq - 1, owner_instance = NULL
     WHERE s.destination_id = p_id AND s.shard_no >= p_shards;
    UPDATE shardq.shard s SET fence = s.next_seq
     WHERE s.destination_id = p_id AND s.shard_no < p_shards;
    UPDATE shardq.destination d
       SET draining_from = p_shards,
           group_map = CASE WHEN d.message_groups OR d.group_map IS NOT NULL THEN
               ARRAY(SELECT (CASE WHEN g < p_shards THEN g ELSE g % p_shards END)::smallint
                       FROM unnest(coalesce(d.group_map, ARRAY(SELECT generate_series(0, v_old - 1))::smallint[]))
                            WITH ORDINALITY AS m (g, i) ORDER BY i) END
     WHERE d.id = p_id;
    PERFORM shardq.shrink_lift(p_id);
END $$;

-- True when every subscription's cursor of every draining shard of p_id passed the shard's drain
-- head (nothing waits there, nothing is in flight: a cursor moves only by a commit).
-- (plpgsql: its body is checked when it runs, so this file also applies to an older schema.)
CREATE OR REPLACE FUNCTION shardq.shrink_drained(p_id integer, p_from integer DEFAULT 0)
RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN NOT EXISTS (
        SELECT 1 FROM shardq.shard s JOIN shardq.cursor c
            ON c.destination_id = s.destination_id AND c.shard_no = s.shard_no
         WHERE s.destination_id = p_id AND s.drain_head IS NOT NULL AND s.shard_no >= p_from
           AND c.position < s.drain_head);
END $$;

-- Clears the fences of p_id once its draining shards are empty (see begin_shrink); the catalog
-- NOTIFY (the destination row is touched) tells every instance to show its consumers the heads.
CREATE OR REPLACE FUNCTION shardq.shrink_lift(p_id integer)
RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM shardq.shard s WHERE s.destination_id = p_id AND s.fence IS NOT NULL)
       OR NOT shardq.shrink_drained(p_id) THEN
        RETURN false;
    END IF;
    UPDATE shardq.shard s SET fence = NULL WHERE s.destination_id = p_id AND s.fence IS NOT NULL;
    UPDATE shardq.destination d SET draining_from = d.draining_from WHERE d.id = p_id;
    RETURN true;
END $$;

-- The maintenance leader's step of a shrink of p_id: lifts the fences once the draining shards
-- are empty, then retires drained shards from the highest down (so the shards stay numbered
-- 0..count-1): deletes what the catalog holds of the shard and drops its storage. No shard is
-- retired while a fence stands: a subscription that drained the last draining shards between
-- the lift's check and the retirement would otherwise end the shrink (draining_from NULL, so no
-- further step) with its fences left up and the messages behind them never shown. The DROP needs
-- the destination's table exclusively for a moment; under p_lock_timeout_ms, a shard whose lock
-- is not granted in time is left for the next step. Returns what it did, one row per event:
-- 'lifted' (shard null), 'retired', 'busy'.
CREATE OR REPLACE FUNCTION shardq.shrink_step(p_id integer, p_lock_timeout_ms integer DEFAULT 100)
RETURNS TABLE (event text, shard_no integer) LANGUAGE plpgsql AS $$
DECLARE
    v_count integer;
    v_from integer;
    v_leaf text;
BEGIN
    IF shardq.shrink_lift(p_id) THEN
        event := 'lifted'; shard_no := NULL; RETURN NEXT;
    ELSIF EXISTS (SELECT 1 FROM shardq.shard s WHERE s.destination_id = p_id AND s.fence IS NOT NULL) THEN
        RETURN; -- not drained yet: retire nothing while fences stand (see above)
    END IF;
    PERFORM set_config('lock_timeout', p_lock_timeout_ms || 'ms', true);
    LOOP
        SELECT d.shard_count, d.draining_from INTO v_count, v_from FROM shardq.destination d WHERE d.id = p_id;
        EXIT WHEN v_from IS NULL OR v_count <= v_from OR NOT shardq.shrink_drained(p_id, v_count - 1);
        BEGIN
            PERFORM 1 FROM shardq.destination d WHERE d.id = p_id FOR UPDATE;
            PERFORM 1 FROM shardq.shard s WHERE s.destination_id = p_id AND s.shard_no = v_count - 1 FOR UPDATE;
            PERFORM 1 FROM shardq.cursor c WHERE c.destination_id = p_id AND c.shard_no = v_count - 1 FOR UPDATE;
            EXIT WHEN NOT shardq.shrink_drained(p_id, v_count - 1);
            DELETE FROM shardq.dequeue_range r USING shardq.subscription sub
             WHERE sub.destination_id = p_id AND r.subscription_id = sub.id AND r.shard_no = v_count - 1;
            DELETE FROM shardq.delivery_attempt a USING shardq.subscription sub
             WHERE sub.destination_id = p_id AND a.subscription_id = sub.id AND a.shard_no = v_count - 1;
            DELETE FROM shardq.large_body b WHERE b.destination_id = p_id AND b.shard_no = v_count - 1;
            IF shardq.flat_layout(p_id) THEN
                FOR v_leaf IN SELECT 'm_' || p_id || '_' || (v_count - 1) || '_' || sl.slot FROM shardq.slice sl
                               WHERE sl.destination_id = p_id AND sl.shard_no = v_count - 1 LOOP
                    EXECUTE format('DROP TABLE shardq.%I', v_leaf);
                END LOOP;
            ELSE
                EXECUTE format('DROP TABLE shardq.%I', 'm_' || p_id || '_' || (v_count - 1));
            END IF;
            DELETE FROM shardq.shard s WHERE s.destination_id = p_id AND s.shard_no = v_count - 1;
            UPDATE shardq.destination d
               SET shard_count = v_count - 1,
                   draining_from = CASE WHEN v_count - 1 > d.draining_from THEN d.draining_from END
             WHERE d.id = p_id;
            event := 'retired'; shard_no := v_count - 1; RETURN NEXT;
        EXCEPTION WHEN lock_not_available THEN
            event := 'busy'; shard_no := v_count - 1; RETURN NEXT;
            EXIT;
        END;
    END LOOP;
    IF v_from IS NOT NULL AND v_count <= v_from THEN
        UPDATE shardq.destination d SET draining_from = NULL WHERE d.id = p_id;
    END IF;
END $$;

CREATE OR REPLACE FUNCTION shardq.alter_queue(
    name text,
    shards integer DEFAULT NULL,
    slice_size integer DEFAULT NULL,
    max_attempts integer DEFAULT NULL,
    dead_letter_name text DEFAULT NULL)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_id integer;
    v_shards integer;
    v_draining integer;
BEGIN
    PERFORM shardq.check_name(name);
    PERFORM shardq.require_owner('alter', name);
    v_id := shardq.destination_id(name);
    SELECT d.shard_count, d.draining_from INTO v_shards, v_draining FROM shardq.destination d WHERE d.id = v_id FOR UPDATE;
    IF shards IS NOT NULL AND shards <> coalesce(v_draining, v_shards) THEN
        IF shards < 1 OR shards > 256 THEN
            RAISE EXCEPTION 'shard count % is invalid: expected 1 to 256', shards USING ERRCODE = '22023';
        ELSIF v_draining IS NOT NULL THEN
            RAISE EXCEPTION '"%" is still shrinking to % shards: shards % to % are draining; change its shard count again once they are retired (shardq.shard_stats shows them)',
                name, v_draining, v_draining, v_shards - 1 USING ERRCODE = '55000';
        END IF;
        IF shards < v_shards THEN
            PERFORM shardq.begin_shrink(v_id, shards);
        ELSE
            -- message groups keep their shard: the assignment so far (the identity over the old
            -- count) is recorded before the new shards come (V014)
            UPDATE shardq.destination d
               SET group_map = ARRAY(SELECT generate_series(0, v_shards - 1))::smallint[]
             WHERE d.id = v_id AND d.message_groups AND d.group_map IS NULL;
            FOR s IN v_shards..shards - 1 LOOP
                PERFORM shardq.add_shard(v_id, s);
            END LOOP;
            UPDATE shardq.destination SET shard_count = shards WHERE id = v_id;
        END IF;
    END IF;
    IF slice_size IS NOT NULL THEN
        IF slice_size < 16 OR slice_size > 100000000 THEN
            RAISE EXCEPTION 'slice size % is invalid: expected 16 to 100000000 messages', slice_size USING ERRCODE = '22023';
        END IF;
        UPDATE shardq.destination d SET slice_size = alter_queue.slice_size WHERE d.id = v_id;
    END IF;
    IF max_attempts IS NOT NULL THEN
        IF max_attempts < 1 THEN
            RAISE EXCEPTION 'max attempts % is invalid: expected 1 or more', max_attempts USING ERRCODE = '22023';
        END IF;
        UPDATE shardq.destination d SET max_attempts = alter_queue.max_attempts WHERE d.id = v_id;
    END IF;
    IF dead_letter_name IS NOT NULL THEN
        PERFORM shardq.check_name(dead_letter_name);
        UPDATE shardq.destination d SET dead_letter_name = alter_queue.dead_letter_name WHERE d.id = v_id;
    END IF;
END $$;

-- start_queue, stop_queue and purge_queue are SECURITY DEFINER so that a role holding the
-- administer privilege on the destination (not only the owner) may run them; each checks it first.
CREATE OR REPLACE FUNCTION shardq.start_queue(name text, enqueue boolean DEFAULT true, dequeue boolean DEFAULT true)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    v_id integer := shardq.require_administer(start_queue.name, 'start');
BEGIN
    UPDATE shardq.destination d
       SET enqueue_enabled = d.enqueue_enabled OR start_queue.enqueue,
           dequeue_enabled = d.dequeue_enabled OR start_queue.dequeue
     WHERE d.id = v_id;
END $$;

CREATE OR REPLACE FUNCTION shardq.stop_queue(name text, enqueue boolean DEFAULT true, dequeue boolean DEFAULT true)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    v_id integer := shardq.require_administer(stop_queue.name, 'stop');
BEGIN
    UPDATE shardq.destination d
       SET enqueue_enabled = d.enqueue_enabled AND NOT stop_queue.enqueue,
           dequeue_enabled = d.dequeue_enabled AND NOT stop_queue.dequeue
     WHERE d.id = v_id;
END $$;

-- Discards every waiting message: cursors jump to the head of each shard (leases are revoked
-- so instances reload them), then every slice is truncated and the consumed ones freed, and the
-- streamed bodies of the destination's messages deleted.
-- Returns how many messages were discarded, and adds them to shardq.purge_count (V016), so that
-- readers tell a purge from consumption.
CREATE OR REPLACE FUNCTION shardq.purge_queue(name text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    v_id integer := shardq.require_administer(purge_queue.name, 'purge');
    v_purged bigint;
    v_slice record;
BEGIN
    PERFORM shardq.citus_sequential();
    PERFORM shardq.lock_shards(v_id);
    -- counted under the shard locks: no send lands between the count and the discard
    v_purged := shardq.backlog(purge_queue.name);
    INSERT INTO shardq.purge_count AS p (destination_id, purged, purges, last_purge_at)
    VALUES (v_id, v_purged, 1, now())
    ON CONFLICT (destination_id) DO UPDATE
       SET purged = p.purged + EXCLUDED.purged, purges = p.purges + 1, last_purge_at = EXCLUDED.last_purge_at;
    UPDATE shardq.cursor c
       SET position = s.next_seq - 1, lease_instance = NULL, lease_until = NULL
      FROM shardq.shard s
     WHERE s.destination_id = v_id AND c.destination_id = v_id AND c.shard_no = s.shard_no;
    DELETE FROM shardq.delivery_attempt a USING shardq.subscription sub
     WHERE sub.id = a.subscription_id AND sub.destination_id = v_id;
    DELETE FROM shardq.dequeue_range l USING shardq.subscription sub
     WHERE sub.id = l.subscription_id AND sub.destination_id = v_id;
    FOR v_slice IN SELECT * FROM shardq.slice WHERE destination_id = v_id AND first_seq IS NOT NULL LOOP
        EXECUTE format('TRUNCATE shardq.%I', 'm_' || v_id || '_' || v_slice.shard_no || '_' || v_slice.slot);
    END LOOP;
    -- the streamed bodies of the truncated messages (V012; their chunks go by cascade)
    DELETE FROM shardq.large_body WHERE destination_id = v_id;
    UPDATE shardq.slice sl SET first_seq = NULL, last_seq = NULL, assigned_at = NULL
      FROM shardq.shard s
     WHERE sl.destination_id = v_id AND s.destination_id = v_id AND s.shard_no = sl.shard_no
       AND sl.last_seq < s.next_seq;
    RETURN v_purged;
END $$;

-- Gives the slice that starts at p_first_seq a slot: a free one if any, else a new one.
-- Called by enqueue while it holds the shard row lock, so slices never overlap.
CREATE OR REPLACE FUNCTION shardq.assign_slice(p_destination integer, p_shard integer, p_first_seq bigint, p_size integer)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    v_slot integer;
BEGIN
    SELECT slot INTO v_slot FROM shardq.slice
     WHERE destination_id = p_destination AND shard_no = p_shard AND first_seq = p_first_seq;
    IF v_slot IS NOT NULL THEN
        RETURN v_slot;
    END IF;
    SELECT slot INTO v_slot FROM shardq.slice
     WHERE destination_id = p_destination AND shard_no = p_shard AND first_seq IS NULL
     ORDER BY slot LIMIT 1 FOR UPDATE SKIP LOCKED;
    IF v_slot IS NULL THEN
        v_slot := shardq.add_slot(p_destination, p_shard);
    END IF;
    UPDATE shardq.slice SET first_seq = p_first_seq, last_seq = p_first_seq + p_size - 1, assigned_at = now()
     WHERE destination_id = p_destination AND shard_no = p_shard AND slot = v_slot;
    RETURN v_slot;
END $$;

-- Per-destination grants (issue 9): grant, revoke and list who may send, receive, browse and
-- administer a destination. They are PostgreSQL privileges on its table shardq.m_<id> (see V004):
-- send = INSERT, browse = SELECT, receive = SELECT and DELETE, administer = TRUNCATE, always
-- granted by the table's owner (these functions run as it), so a revoke by any administrator
-- removes a grant made by another. Nothing is ever granted to PUBLIC. A grant also gives USAGE on
-- the schema, without which the role could not name the table; a revoke leaves it (it shows no
-- contents by itself). The caller needs the administer privilege on the destination.
CREATE OR REPLACE FUNCTION shardq.table_privileges(p_privilege text, p_revoke boolean) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE shardq.check_privilege(p_privilege)
        WHEN 'send' THEN 'INSERT'
        WHEN 'browse' THEN CASE WHEN p_revoke THEN 'SELECT, DELETE' ELSE 'SELECT' END
        WHEN 'receive' THEN 'SELECT, DELETE'
        WHEN 'administer' THEN 'TRUNCATE'
    END
$$;

CREATE OR REPLACE FUNCTION shardq.grant(queue text, role_name text, privilege text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    v_privilege text := shardq.check_privilege(privilege);
    v_id integer;
BEGIN
    PERFORM shardq.check_name(queue);
    PERFORM shardq.check_role(role_name);
    v_id := shardq.require_administer(queue, 'grant privileges on');
    EXECUTE format('GRANT USAGE ON SCHEMA shardq TO %I', role_name);
    EXECUTE format('GRANT %s ON TABLE shardq.%I TO %I', shardq.table_privileges(v_privilege, false), 'm_' || v_id, role_name);
END $$;

CREATE OR REPLACE FUNCTION shardq.revoke(queue text, role_name text, privilege text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    v_privilege text := shardq.check_privilege(privilege);
    v_id integer;
BEGIN
    PERFORM shardq.check_name(queue);
    PERFORM shardq.check_role(role_name);
    v_id := shardq.require_administer(queue, 'revoke privileges on');
    EXECUTE format('REVOKE %s ON TABLE shardq.%I FROM %I', shardq.table_privileges(v_privilege, true), 'm_' || v_id, role_name);
END $$;

-- One row per (role, privilege) granted on the destination, read from the table's ACL; the
-- owner (who holds everything) is not listed. receive is listed with browse, which it includes.
CREATE OR REPLACE FUNCTION shardq.grants(queue text)
RETURNS TABLE (role_name text, privilege text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    v_id integer := shardq.require_administer(queue, 'list the grants of');
BEGIN
    RETURN QUERY
    SELECT coalesce(r.rolname::text, 'PUBLIC') AS r, p.name AS p
      FROM (SELECT a.grantee, array_agg(a.privilege_type) AS privs
              FROM pg_class c, aclexplode(c.relacl) a
             WHERE c.oid = to_regclass(format('shardq.%I', 'm_' || v_id)) AND a.grantee <> c.relowner
             GROUP BY a.grantee) g
      LEFT JOIN pg_roles r ON r.oid = g.grantee
     CROSS JOIN LATERAL (VALUES ('administer', 'TRUNCATE' = ANY (g.privs)),
                                ('browse', 'SELECT' = ANY (g.privs)),
                                ('receive', 'SELECT' = ANY (g.privs) AND 'DELETE' = ANY (g.privs)),
                                ('send', 'INSERT' = ANY (g.privs))) p(name, held)
     WHERE p.held
     ORDER BY 1, 2;
END $$;

-- Temporary destinations (JMS TemporaryQueue and TemporaryTopic; V007, docs/architecture.md,
-- "Temporary destinations"): real destinations with a generated name, tmp.<instance>.<32 hex>,
-- one shard (cheap DDL, total order), dead letters to the ordinary queue temporary.DLQ (they
-- outlive the destination, so an operator can still look at them), owned by one JMS connection
-- (p_connection_id) of one instance. Returns the name. p_kind is 'queue' or 'topic'.
CREATE OR REPLACE FUNCTION shardq.create_temporary(p_kind text, p_instance_id bigint, p_connection_id uuid)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    v_name text;
    v_id integer;
BEGIN
    IF p_instance_id IS NULL OR p_connection_id IS NULL THEN
        RAISE EXCEPTION 'a temporary destination needs its owner: instance id and connection id must not be null'
            USING ERRCODE = '22023';
    END IF;
    v_name := 'tmp.' || p_instance_id || '.' || replace(gen_random_uuid()::text, '-', '');
    -- create_queue checks the kind and that the caller owns the shardq schema
    v_id := shardq.create_queue(v_name, shards => 1, kind => p_kind);
    UPDATE shardq.destination SET dead_letter_name = 'temporary.DLQ' WHERE id = v_id;
    INSERT INTO shardq.temporary_destination (destination_id, instance_id, connection_id)
         VALUES (v_id, p_instance_id, p_connection_id);
    RETURN v_name;
END $$;

-- Drops a temporary destination and its messages. With p_connection_id, only when that connection
-- owns it (the JMS delete() and connection close); without, any temporary destination (an
-- operator, or the maintenance leader cleaning up after a dead instance). Refuses a destination
-- that is not temporary: drop those with drop_queue.
CREATE OR REPLACE FUNCTION shardq.drop_temporary(p_name text, p_connection_id uuid DEFAULT NULL)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_owner uuid;
BEGIN
    PERFORM shardq.check_name(p_name);
    SELECT t.connection_id INTO v_owner
      FROM shardq.temporary_destination t JOIN shardq.destination d ON d.id = t.destination_id
     WHERE d.name = p_name FOR UPDATE OF t;
    IF v_owner IS NULL THEN
        PERFORM shardq.destination_id(p_name); -- 42704 when it does not exist at all
        RAISE EXCEPTION 'destination "%" is not temporary: drop it with shardq.drop_queue', p_name
            USING ERRCODE = '55000';
    END IF;
    IF p_connection_id IS NOT NULL AND v_owner <> p_connection_id THEN
        RAISE EXCEPTION 'temporary destination "%" belongs to another connection: only the connection that created it may delete it', p_name
            USING ERRCODE = '42501';
    END IF;
    PERFORM shardq.drop_queue(p_name, force => true);
END $$;

-- The delivery policy of a queue or topic (V011): what is not null changes. expiry_queue: the queue
-- that receives its messages found expired at delivery ('' : none, expired messages are dropped);
-- redelivery_delay_ms (0: at once) and redelivery_multiplier (1 or more): the wait before the
-- next delivery after the n-th failed one is delay x multiplier^(n-1), overriding the instance's
-- shardq.redelivery.* settings; message_groups: JMSXGroupID routing and one consumer per shard at a
-- time. plpgsql: it reads a V011 column.
DROP FUNCTION IF EXISTS shardq.set_delivery_policy(text, text, integer, real);
CREATE OR REPLACE FUNCTION shardq.set_delivery_policy(
    name text,
    expiry_queue text DEFAULT NULL,
    redelivery_delay_ms integer DEFAULT NULL,
    redelivery_multiplier real DEFAULT NULL,
    message_groups boolean DEFAULT NULL)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_id integer;
BEGIN
    PERFORM shardq.check_name(name);
    PERFORM shardq.require_owner('alter', name);
    v_id := shardq.destination_id(name);
    IF expiry_queue IS NOT NULL THEN
        IF expiry_queue <> '' THEN
            PERFORM shardq.check_name(expiry_queue);
            IF expiry_queue = name THEN
                RAISE EXCEPTION 'the expiry queue of "%" cannot be "%" itself', name, name USING ERRCODE = '22023';
            END IF;
        END IF;
        UPDATE shardq.destination d SET expiry_name = nullif(set_delivery_policy.expiry_queue, '') WHERE d.id = v_id;
    END IF;
    IF redelivery_delay_ms IS NOT NULL THEN
        IF redelivery_delay_ms < 0 THEN
            RAISE EXCEPTION 'redelivery delay % ms is invalid: expected 0 or more', redelivery_delay_ms
                USING ERRCODE = '22023';
        END IF;
        UPDATE shardq.destination d SET redelivery_delay_ms = set_delivery_policy.redelivery_delay_ms WHERE d.id = v_id;
    END IF;
    IF redelivery_multiplier IS NOT NULL THEN
        IF NOT redelivery_multiplier >= 1 THEN
            RAISE EXCEPTION 'redelivery multiplier % is invalid: expected 1 or more', redelivery_multiplier
                USING ERRCODE = '22023';
        END IF;
        UPDATE shardq.destination d SET redelivery_multiplier = set_delivery_policy.redelivery_multiplier
         WHERE d.id = v_id;
    END IF;
    IF message_groups IS NOT NULL THEN
        UPDATE shardq.destination d SET message_groups = set_delivery_policy.message_groups WHERE d.id = v_id;
    END IF;
    -- every instance rereads the row: the V002 trigger NOTIFYs shardq_catalog on the update
END $$;

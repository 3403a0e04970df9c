-- R__shardq_sql_receive: receiving from SQL (issue 28), in the caller's transaction:
--   begin;
--   select message_id, body_text, properties, delivery_count from shardq.receive('orders', 10);
--   commit;   -- consumed; a rollback gives them back, their delivery count raised
-- A SQL consumer is an instance (shardq.instance, its session advisory lock): it leases shards as a
-- JVM does, shares a queue with JVM consumers without loss or duplication, and loses its leases when
-- its connection ends. docs/design/sql-api.md says how and why; SqlReceiveTest,
-- SqlConsumerFaultTest and SqlSendJmsTest prove it.
-- Repeatable: CREATE OR REPLACE only, signatures backward compatible. User data reaches SQL only as
-- parameters: the dynamic statements name tables built from numeric ids, and the selector's
-- translation binds its literals.

-- The fixed fields of a binary message header (HeaderCodec: version 1, 2 with a streamed body's id
-- and size, 3 from a SQL send): the body type, the streamed body's id, JMSMessageID, JMSTimestamp
-- (epoch ms), JMSCorrelationID, JMSType, JMSReplyTo ("queue:NAME" or "topic:NAME"), and the offset
-- of the property count (where version 1 and 2 keep their properties). A string PostgreSQL's text
-- cannot hold (a U+0000) is NULL.
CREATE OR REPLACE FUNCTION shardq.header_fields(
    h bytea,
    OUT version integer, OUT body_type integer, OUT body_id bigint, OUT message_id text, OUT ts bigint,
    OUT correlation_id text, OUT type text, OUT reply_to text, OUT props_at integer)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    p integer := 2;
    v text[] := '{}';
    n integer;
    s bytea;
BEGIN
    version := get_byte(h, 0);
    body_type := get_byte(h, 1);
    IF version = 2 THEN
        body_id := ('x' || encode(substring(h FROM 3 FOR 8), 'hex'))::bit(64)::bigint;
        p := 18;
    END IF;
    FOR k IN 1 .. 4 LOOP
        IF k = 2 THEN
            ts := ('x' || encode(substring(h FROM p + 1 FOR 8), 'hex'))::bit(64)::bigint;
            p := p + 8;
        END IF;
        IF get_byte(h, p) = 0 THEN
            v := v || NULL::text;
            p := p + 1;
        ELSE
            n := (get_byte(h, p + 1) << 24) | (get_byte(h, p + 2) << 16) | (get_byte(h, p + 3) << 8) | get_byte(h, p + 4);
            s := substring(h FROM p + 6 FOR n);
            v := v || CASE WHEN position('\x00'::bytea IN s) > 0 THEN NULL ELSE convert_from(s, 'UTF8') END;
            p := p + 5 + n;
        END IF;
    END LOOP;
    message_id := v[1];
    correlation_id := v[2];
    type := v[3];
    reply_to := v[4];
    props_at := p;
END $$;

-- JMSMessageID and JMSTimestamp of a stored message, for selectors that name them.
CREATE OR REPLACE FUNCTION shardq.header_message_id(h bytea) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT (shardq.header_fields(h)).message_id $$;

CREATE OR REPLACE FUNCTION shardq.header_timestamp(h bytea) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT (shardq.header_fields(h)).ts $$;

-- Header h (its property count at p_at) with string or long properties added, as HeaderCodec
-- writes them (a later entry of a name replaces an earlier one when the JVM reads it). A version 3
-- header keeps its properties in the properties column only: returned unchanged.
CREATE OR REPLACE FUNCTION shardq.header_with_properties(h bytea, p_at integer, p jsonb) RETURNS bytea
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    k text;
    v jsonb;
    e bytea := '\x'::bytea;
    n integer := 0;
BEGIN
    IF get_byte(h, 0) = 3 THEN
        RETURN h;
    END IF;
    FOR k, v IN SELECT x.key, x.value FROM jsonb_each(p) x LOOP
        e := e || substring(int4send(octet_length(k)) FROM 3) || convert_to(k, 'UTF8')
               || CASE jsonb_typeof(v)
                      WHEN 'number' THEN '\x4a'::bytea || int8send((v #>> '{}')::bigint)
                      ELSE '\x53'::bytea || int4send(octet_length(convert_to(v #>> '{}', 'UTF8'))) || convert_to(v #>> '{}', 'UTF8')
                  END;
        n := n + 1;
    END LOOP;
    RETURN substring(h FOR p_at)
        || substring(int4send((get_byte(h, p_at) << 8 | get_byte(h, p_at + 1)) + n) FROM 3)
        || substring(h FROM p_at + 3) || e;
END $$;

-- The calling backend's consumer instance: a row in shardq.instance and the session advisory lock
-- (1397248593, id) that V013's liveness reads, so its leases are free the moment its connection
-- ends, as a killed JVM's are. Found again through that lock (it outlives a rollback; the row may
-- not: then the lock is let go and a new instance made). Its heartbeat is each receive.
CREATE OR REPLACE FUNCTION shardq.sql_consumer(p_ttl_secs double precision) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    v_id bigint;
    v_lock bigint;
BEGIN
    FOR v_lock IN SELECT l.objid::bigint FROM pg_catalog.pg_locks l
                   WHERE l.locktype = 'advisory' AND l.pid = pg_backend_pid() AND l.granted
                     AND l.classid = 1397248593::oid AND l.objsubid = 2
                     AND l.database = (SELECT x.oid FROM pg_catalog.pg_database x WHERE x.datname = current_database())
    LOOP
        IF v_id IS NULL AND EXISTS (SELECT 1 FROM shardq.instance i
                                     WHERE i.id = v_lock AND i.stopped_at IS NULL AND i.name LIKE 'sql %') THEN
            v_id := v_lock;
        ELSIF NOT EXISTS (SELECT 1 FROM shardq.instance i WHERE i.id = v_lock) THEN
            PERFORM pg_advisory_unlock(1397248593, v_lock::integer); -- its row was rolled back
        END IF;
    END LOOP;
    IF v_id IS NOT NULL THEN
        UPDATE shardq.instance SET heartbeat_at = now()
         WHERE id = v_id AND heartbeat_at < now() - make_interval(secs => p_ttl_secs / 4);
        RETURN v_id;
    END IF;
    -- SQL consumers whose sessions ended a day ago and hold nothing: their rows go (the holders read
    -- first: Citus modifies a coordinator table with no subquery over a distributed one)
    DELETE FROM shardq.instance i
     WHERE i.name LIKE 'sql %' AND i.heartbeat_at < now() - interval '1 day'
       AND i.id <> ALL(ARRAY(SELECT DISTINCT c.lease_instance FROM shardq.cursor c WHERE c.lease_instance IS NOT NULL));
    INSERT INTO shardq.instance (name, session_lock)
    VALUES (left('sql ' || pg_backend_pid() || ' ' || coalesce(nullif(current_setting('application_name'), ''), session_user), 200), true)
    RETURNING id INTO v_id;
    PERFORM pg_advisory_lock(1397248593, v_id::integer);
    RETURN v_id;
END $$;

-- What this session handed out and may have to count as a failed delivery: a JSON array of
-- [subscription, shard, first seq, last seq, the transaction that received them, the transaction
-- that counted them]. It must outlive the caller's rollback, which undoes every table write and
-- set_config: it is kept as the text of a prepared statement (PREPARE is not transactional), read
-- back from pg_prepared_statements. Only numbers are ever written into it.
CREATE OR REPLACE FUNCTION shardq.receive_memory() RETURNS jsonb
LANGUAGE sql STABLE AS $$
    SELECT coalesce((SELECT substring(p.statement FROM '^PREPARE shardq_received AS SELECT ''(.*)''::text$')::jsonb
                       FROM pg_catalog.pg_prepared_statements p WHERE p.name = 'shardq_received'), '[]')
$$;

CREATE OR REPLACE FUNCTION shardq.receive_memory_keep(p jsonb) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_prepared_statements x WHERE x.name = 'shardq_received') THEN
        EXECUTE 'DEALLOCATE shardq_received';
    END IF;
    IF p IS NOT NULL AND p <> '[]' THEN
        -- only numbers: the text is a jsonb array of arrays of integers (and NULLs)
        IF jsonb_path_exists(p, '$[*][*] ? (@.type() != "number" && @.type() != "null")') THEN
            RAISE EXCEPTION 'shardq.receive_memory_keep: not numbers only' USING ERRCODE = 'XX000';
        END IF;
        EXECUTE format('PREPARE shardq_received AS SELECT %L::text', p::text);
    END IF;
END $$;

-- Failed deliveries of this session: messages it received in a transaction that rolled back
-- (and nobody consumed since) get one more delivery attempt (shardq.delivery_attempt, which
-- the JVM's consumers read too), counted in the caller's transaction; a record is dropped once
-- the transaction that received it, or the one that counted it, committed. Returns the records
-- to keep; the caller keeps them (receive_memory_keep) with what it receives, once per call.
CREATE OR REPLACE FUNCTION shardq.receive_count_failures(p_mem jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
    v_keep jsonb := '[]';
    v_xid xid8 := pg_current_xact_id();
    r jsonb;
    v_handed text;
    v_counted text;
BEGIN
    IF p_mem = '[]' THEN
        RETURN p_mem;
    END IF;
    FOR r IN SELECT x FROM jsonb_array_elements(p_mem) x LOOP
        IF (r ->> 4)::xid8 = v_xid OR (r ->> 5)::xid8 = v_xid THEN
            v_keep := v_keep || jsonb_build_array(r);
            CONTINUE;
        END IF;
        v_handed := pg_xact_status((r ->> 4)::xid8);
        v_counted := CASE WHEN r ->> 5 IS NOT NULL THEN pg_xact_status((r ->> 5)::xid8) END;
        IF v_handed = 'in progress' OR v_counted = 'in progress' THEN
            v_keep := v_keep || jsonb_build_array(r); -- a prepared transaction: decided later
        ELSIF v_handed = 'aborted' AND (v_counted IS NULL OR v_counted = 'aborted') THEN
            INSERT INTO shardq.delivery_attempt (subscription_id, shard_no, seq, attempts)
            SELECT (r ->> 0)::bigint, (r ->> 1)::integer, g, 1
              FROM shardq.cursor c,
                   generate_series(greatest((r ->> 2)::bigint, c.position + 1), (r ->> 3)::bigint) g
             WHERE c.subscription_id = (r ->> 0)::bigint AND c.shard_no = (r ->> 1)::integer
               AND NOT EXISTS (SELECT 1 FROM shardq.dequeue_range l
                                WHERE l.subscription_id = c.subscription_id AND l.shard_no = c.shard_no
                                  AND l.first_seq <= g AND l.last_seq >= g)
            ON CONFLICT (subscription_id, shard_no, seq)
            DO UPDATE SET attempts = shardq.delivery_attempt.attempts + 1;
            v_keep := v_keep || jsonb_build_array(jsonb_set(r, '{5}', to_jsonb(v_xid::text::numeric)));
        END IF;
        -- otherwise (received or counted by a committed transaction, or too old to know): done
    END LOOP;
    RETURN v_keep;
END $$;

-- A short-lived list of shard numbers a session keeps between its transactions (set_config, so a
-- rollback forgets it): "<until epoch ms>:<n>,<n>,...". session_list is NULL once it is out of date.
CREATE OR REPLACE FUNCTION shardq.session_list(p_name text) RETURNS integer[]
LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN split_part(v, ':', 1)::bigint > extract(epoch FROM clock_timestamp()) * 1000
                THEN coalesce(string_to_array(nullif(split_part(v, ':', 2), ''), ',')::integer[], '{}') END
      FROM (SELECT nullif(current_setting(p_name, true), '') AS v) x
$$;

CREATE OR REPLACE FUNCTION shardq.session_list_keep(p_name text, p_ms integer, p_list integer[]) RETURNS void
LANGUAGE sql AS $$
    SELECT set_config(p_name, (extract(epoch FROM clock_timestamp()) * 1000 + p_ms)::bigint || ':' || array_to_string(p_list, ','), false)
$$;

-- One cursor as receive_leases sees it.
DROP TYPE IF EXISTS shardq.lease_view CASCADE;
CREATE TYPE shardq.lease_view AS (shard_no integer, backlog bigint, holder bigint, expiring boolean);

-- Leases for SQL consumer p_me on subscription p_sub (docs/design/dequeue.md, LeaseBalancer's
-- rules): its own are renewed once less than half the TTL is left; free shards (never taken,
-- given back, expired, or a dead instance's) are taken up to the fair share (shards over the live
-- consumers: holders, askers and this one), and one with a backlog beyond it while nothing held
-- here has one; beyond the share the emptiest are given back while another instance asks; it
-- asks (instance.hungry_for) while below the share and another holds more, or idle while another
-- holds two or more shards with a backlog. Returns the shards it holds. In the caller's
-- transaction: what it takes or gives takes effect at its commit.
CREATE OR REPLACE FUNCTION shardq.receive_leases(p_me bigint, p_sub bigint, p_destination integer, p_ttl_secs double precision)
RETURNS integer[]
LANGUAGE plpgsql AS $$
DECLARE
    v_live bigint[] := ARRAY(SELECT shardq.live_instances(p_ttl_secs));
    v_c shardq.lease_view[];
    v_consumers integer;
    v_shards integer;
    v_share integer;
    v_mine integer[];
    v_take integer[];
    v_one integer;
    v_hungry boolean;
    v_asking boolean;
    v_give integer[];
    v_recent integer[];
BEGIN
    -- the holder is a live instance's (this one's included), else NULL: the lease is free
    v_c := ARRAY(SELECT ROW(c.shard_no, least(s.next_seq, s.fence) - 1 - c.position,
                            CASE WHEN c.lease_until > now() AND c.lease_instance = ANY(v_live || p_me) THEN c.lease_instance END,
                            c.lease_until < now() + make_interval(secs => p_ttl_secs / 2))::shardq.lease_view
                   FROM shardq.cursor c JOIN shardq.shard s ON s.destination_id = c.destination_id AND s.shard_no = c.shard_no
                  WHERE c.subscription_id = p_sub ORDER BY c.shard_no);
    v_shards := cardinality(v_c);
    SELECT count(DISTINCT x) INTO v_consumers
      FROM (SELECT holder AS x FROM unnest(v_c) r WHERE holder IS NOT NULL
            UNION SELECT p_me
            UNION SELECT i.id FROM shardq.instance i WHERE i.id = ANY(v_live) AND p_destination = ANY(i.hungry_for)) c;
    v_share := ceil(v_shards::numeric / v_consumers);
    -- renew
    UPDATE shardq.cursor c SET lease_until = now() + make_interval(secs => p_ttl_secs)
      FROM unnest(v_c) r
     WHERE c.subscription_id = p_sub AND c.shard_no = r.shard_no AND r.holder = p_me AND r.expiring
       AND c.lease_instance = p_me;
    v_mine := ARRAY(SELECT shard_no FROM unnest(v_c) r WHERE holder = p_me);
    -- shards this session gave back in the last two seconds are left for the asker
    v_recent := coalesce(shardq.session_list('shardq.receive_given_' || p_sub), '{}');
    -- take: free shards, those with a backlog first, up to the share; one with a backlog beyond it
    v_take := ARRAY(SELECT shard_no FROM unnest(v_c) r
                     WHERE holder IS NULL AND shard_no <> ALL(v_recent)
                     ORDER BY backlog DESC, shard_no LIMIT greatest(0, v_share - cardinality(v_mine)));
    IF cardinality(v_take) = 0 AND NOT EXISTS (SELECT 1 FROM unnest(v_c) r WHERE holder = p_me AND backlog > 0) THEN
        v_take := ARRAY(SELECT shard_no FROM unnest(v_c) r
                         WHERE holder IS NULL AND backlog > 0 AND shard_no <> ALL(v_recent)
                         ORDER BY backlog DESC LIMIT 1);
    END IF;
    IF cardinality(v_take) > 0 THEN
        -- SKIP LOCKED: a row another transaction holds (a JVM's in-flight commit that logged under
        -- FOR KEY SHARE, a prepared transaction) is taken at a later receive, once its log is complete.
        -- One shard per statement: Citus locks rows only in a statement that touches one of its shards.
        FOREACH v_one IN ARRAY ARRAY(SELECT x FROM unnest(v_take) x ORDER BY 1) LOOP
            UPDATE shardq.cursor c
               SET lease_instance = p_me, lease_until = now() + make_interval(secs => p_ttl_secs), lease_seq = c.lease_seq + 1
             WHERE c.subscription_id = p_sub AND c.shard_no = v_one
               AND (c.subscription_id, c.shard_no) IN (
                   SELECT l.subscription_id, l.shard_no FROM shardq.cursor l
                    WHERE l.subscription_id = p_sub AND l.shard_no = v_one
                      AND (l.lease_instance IS NULL OR l.lease_until < now() OR l.lease_instance = p_me
                           OR NOT (l.lease_instance = ANY(v_live)))
                      FOR UPDATE SKIP LOCKED);
            IF FOUND THEN
                v_mine := v_mine || v_one;
            END IF;
        END LOOP;
    END IF;
    SELECT EXISTS (SELECT 1 FROM shardq.instance i
                    WHERE i.id = ANY(v_live) AND i.id <> p_me AND p_destination = ANY(i.hungry_for))
      INTO v_hungry;
    IF v_hungry THEN
        -- while another instance asks: beyond the share the emptiest; at or below it one of two or
        -- more shards with a backlog (the asker is idle or below its share)
        v_give := CASE WHEN cardinality(v_mine) > v_share
            THEN ARRAY(SELECT r.shard_no FROM unnest(v_c) r
                        WHERE r.shard_no = ANY(v_mine) ORDER BY r.backlog, r.shard_no LIMIT cardinality(v_mine) - v_share)
            ELSE ARRAY(SELECT r.shard_no FROM unnest(v_c) r
                        WHERE r.shard_no = ANY(v_mine) AND r.backlog > 0
                          AND (SELECT count(*) FROM unnest(v_c) y WHERE y.shard_no = ANY(v_mine) AND y.backlog > 0) >= 2
                        ORDER BY r.backlog, r.shard_no LIMIT 1) END;
        IF cardinality(v_give) > 0 THEN
            UPDATE shardq.cursor c SET lease_instance = NULL, lease_until = NULL
             WHERE c.subscription_id = p_sub AND c.lease_instance = p_me AND c.shard_no = ANY(v_give);
            -- not taken back by this session for two seconds, so that the asker gets them (kept with
            -- the commit that gives them)
            PERFORM shardq.session_list_keep('shardq.receive_given_' || p_sub, 2000, v_give);
            v_mine := ARRAY(SELECT x FROM unnest(v_mine) x WHERE x <> ALL(v_give));
        END IF;
    END IF;
    v_asking := (cardinality(v_mine) < v_share
                 AND EXISTS (SELECT 1 FROM unnest(v_c) r WHERE holder IS NOT NULL AND holder <> p_me
                              GROUP BY holder HAVING count(*) > v_share))
             OR (NOT EXISTS (SELECT 1 FROM unnest(v_c) r WHERE shard_no = ANY(v_mine) AND backlog > 0)
                 AND EXISTS (SELECT 1 FROM unnest(v_c) r WHERE holder IS NOT NULL AND holder <> p_me AND backlog > 0
                              GROUP BY holder HAVING count(*) >= 2));
    UPDATE shardq.instance i
       SET hungry_for = CASE WHEN v_asking THEN array_append(i.hungry_for, p_destination)
                             ELSE array_remove(i.hungry_for, p_destination) END
     WHERE i.id = p_me AND (p_destination = ANY(i.hungry_for)) IS DISTINCT FROM v_asking;
    RETURN v_mine;
END $$;

-- Moves aside a message this receive consumes without delivering it (V011, DeadLetters in the JVM):
-- out of delivery attempts to the destination's dead-letter queue (created when missing, as the
-- JVM does), expired to its expiry queue (or nowhere), with why and where from, in the caller's
-- transaction: a rollback undoes both the consumption and the move. A streamed body is copied.
CREATE OR REPLACE FUNCTION shardq.receive_move_aside(
    p_from text, p_queue text, p_header bytea, p_body bytea, p_properties jsonb, p_priority integer,
    p_expires bigint, p_add jsonb)
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    q record;
    h record := shardq.header_fields(p_header);
    v_header bytea;
    v_shard integer;
    v_first bigint;
    v_body_id bigint;
    v_size bigint;
BEGIN
    SELECT x.id, x.kind, x.shard_count, x.draining_from, x.slice_size INTO q FROM shardq.destination x WHERE x.name = p_queue;
    IF NOT FOUND THEN
        PERFORM shardq.create_queue(p_queue, if_not_exists => true);
        SELECT x.id, x.kind, x.shard_count, x.draining_from, x.slice_size INTO q FROM shardq.destination x WHERE x.name = p_queue;
    END IF;
    IF q.kind <> 'queue' THEN
        RAISE EXCEPTION 'cannot move a message of "%" to "%": it is a %, not a queue', p_from, p_queue, q.kind USING ERRCODE = '42809';
    END IF;
    v_header := shardq.header_with_properties(p_header, h.props_at, p_add);
    IF h.version = 2 THEN
        -- a streamed body belongs to one message: the copy gets its own chunks and id
        v_body_id := nextval('shardq.large_body_id');
        v_header := substring(v_header FOR 2) || int8send(v_body_id) || substring(v_header FROM 11);
    END IF;
    v_shard := shardq.session_shard(q.id, coalesce(q.draining_from, q.shard_count));
    v_first := shardq.store_rows(q.id, v_shard, q.slice_size, ARRAY[v_header], ARRAY[p_body],
                                 ARRAY[coalesce(p_properties, '{}') || p_add], NULL,
                                 floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint, p_expires, p_priority);
    IF h.version = 2 THEN
        SELECT b.size INTO v_size FROM shardq.large_body b WHERE b.id = h.body_id;
        INSERT INTO shardq.large_body (id, destination_id, shard_no, seq, size) VALUES (v_body_id, q.id, v_shard, v_first, v_size);
        INSERT INTO shardq.large_body_chunk (body_id, chunk_no, data)
        SELECT v_body_id, c.chunk_no, c.data FROM shardq.large_body_chunk c WHERE c.body_id = h.body_id;
    END IF;
END $$;

-- The engine of shardq.receive and shardq.receive_subscription: up to p_max messages of
-- subscription p_subscription ('' for a queue) of p_destination, taken in the caller's
-- transaction (its commit consumes them, its rollback gives them back and raises their delivery
-- count), from the shards this backend leases as a consumer instance, each shard in sequence
-- order. SECURITY DEFINER with a fixed search_path: the caller needs the receive privilege, not
-- the tables.
CREATE OR REPLACE FUNCTION shardq.receive_messages(
    p_kind text, p_destination text, p_subscription text, p_max integer, p_wait interval, p_selector text)
RETURNS TABLE (message_id text, body_type text, body_text text, body_bytes bytea, properties jsonb,
               correlation_id text, type text, reply_to text, priority integer, "timestamp" timestamptz,
               expiration timestamptz, delivery_count integer, shard integer, seq bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    v_role name := shardq.calling_role();
    d record;
    v_sub record;
    v_ttl double precision := coalesce(nullif(current_setting('shardq.lease_ttl_ms', true), '')::double precision, 10000) / 1000;
    v_me bigint;
    v_xid xid8;
    v_shards integer[];
    v_shard integer;
    v_pos bigint;
    v_head bigint;
    v_from_props bigint;
    v_sel_sql text := 'true';
    v_lits text[];
    v_deadline timestamptz;
    v_sleep double precision := 0.01;
    v_now bigint;
    v_left integer := p_max;
    v_after bigint;
    v_taken bigint[];
    v_delivered bigint[];
    v_mem0 jsonb;
    v_mem jsonb;
    v_runs record;
    v_moved bigint;
    v_run_first bigint;
    v_run_last bigint;
    v_selective boolean := p_selector IS NOT NULL AND btrim(p_selector) <> '';
    v_wanted text;
    v_upto bigint;
    v_full boolean;
    m record;
    h record;
    v_body bytea;
BEGIN
    IF p_destination IS NULL OR p_destination !~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$' THEN
        PERFORM shardq.check_name(p_destination); -- its refusal
    END IF;
    -- the dead-letter queue's name as DestinationInfo#deadLetterQueue gives it to the JVM
    SELECT x.id, x.name, x.kind, x.dequeue_enabled, x.max_attempts, x.expiry_name,
           coalesce(x.dead_letter_name, left(x.name, 60) || '.DLQ') AS dead_letters INTO d
      FROM shardq.destination x WHERE x.name = p_destination;
    IF NOT FOUND THEN
        RAISE EXCEPTION '% "%" does not exist', p_kind, p_destination USING ERRCODE = '42704';
    END IF;
    IF d.kind <> p_kind THEN
        RAISE EXCEPTION '"%" is a %, not a %: %', p_destination, d.kind, p_kind,
            CASE WHEN d.kind = 'topic' THEN 'receive from one of its subscriptions with shardq.receive_subscription'
                 ELSE 'receive from it with shardq.receive' END
            USING ERRCODE = '42809';
    END IF;
    IF NOT shardq.has_privilege(v_role, d.id, 'receive') THEN
        RAISE EXCEPTION 'role "%" may not receive from % "%": it needs the receive privilege on it (shardq.grant(''%'', ''%'', ''receive''), run by an administrator of it)',
            v_role, d.kind, p_destination, p_destination, v_role USING ERRCODE = '42501';
    END IF;
    SELECT x.id, x.bit INTO v_sub FROM shardq.subscription x WHERE x.destination_id = d.id AND x.name = p_subscription;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'subscription "%" of topic "%" does not exist', p_subscription, p_destination USING ERRCODE = '42704';
    END IF;
    IF NOT d.dequeue_enabled THEN
        RAISE EXCEPTION '% "%" is stopped for receiving (shardq.start_queue(''%''))', d.kind, p_destination, p_destination
            USING ERRCODE = '55000';
    END IF;
    IF p_max IS NULL OR p_max NOT BETWEEN 1 AND 10000 THEN
        RAISE EXCEPTION 'max_messages % is invalid: expected 1 to 10000', p_max USING ERRCODE = '22023';
    END IF;
    IF p_wait IS NULL OR p_wait < interval '0' OR p_wait > interval '1 hour' THEN
        RAISE EXCEPTION 'wait % is invalid: expected 0 to 1 hour', p_wait USING ERRCODE = '22023';
    END IF;
    IF p_wait > interval '0' AND current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'receive with a wait needs READ COMMITTED: this transaction is %, whose snapshot never shows a message sent after it began',
            upper(current_setting('transaction_isolation')) USING ERRCODE = '0A000';
    END IF;
    IF v_selective THEN
        -- JMSMessageID and JMSTimestamp are read from the binary header of the rows the rest selects
        SELECT x.sql, x.literal_values INTO v_sel_sql, v_lits
          FROM shardq.selector_sql(p_selector, 'm.properties', 'm.priority', '$6',
                                   'j.id', 'j.ts') x;
        v_sel_sql := format('(%s) AND m.seq >= $7 AND (m.properties IS NULL OR NOT m.properties ? ''JMS_ShardQ_Unrepresentable'')', v_sel_sql);
    END IF;
    -- a topic's rows without this subscription's bit are passed over (consumed, not delivered),
    -- whatever the selector says of them
    v_wanted := CASE WHEN d.kind = 'topic'
                     THEN format('(m.subscribers IS NOT NULL AND length(m.subscribers) > %s AND get_bit(m.subscribers, %s) = 1)',
                                 v_sub.bit / 8, v_sub.bit)
                     ELSE 'true' END;
    v_me := shardq.sql_consumer(v_ttl);
    v_xid := pg_current_xact_id();
    v_mem0 := shardq.receive_memory();
    v_mem := shardq.receive_count_failures(v_mem0);
    v_deadline := clock_timestamp() + p_wait;
    LOOP
        -- the leases are balanced at most every 250 ms (as a JVM's consumers look for leases at most
        -- every 250 ms): in between, the shards it held then, each checked under its row lock below
        -- (measured: the balancing was most of a receive's time)
        v_shards := shardq.session_list('shardq.receive_leases_' || v_sub.id);
        IF v_shards IS NULL THEN
            v_shards := shardq.receive_leases(v_me, v_sub.id, d.id, v_ttl);
            PERFORM shardq.session_list_keep('shardq.receive_leases_' || v_sub.id, 250, v_shards);
        END IF;
        -- each shard in sequence order; the shards in a random order, so none waits behind another
        v_shards := ARRAY(SELECT x FROM unnest(v_shards) x ORDER BY random());
        FOREACH v_shard IN ARRAY v_shards LOOP
            EXIT WHEN v_left = 0;
            -- a shard with nothing above its cursor is passed without a lock (a row lock is a write)
            SELECT c.position, least(s.next_seq, s.fence) - 1, s.properties_from INTO v_pos, v_head, v_from_props
              FROM shardq.cursor c JOIN shardq.shard s ON s.destination_id = c.destination_id AND s.shard_no = c.shard_no
             WHERE c.subscription_id = v_sub.id AND c.shard_no = v_shard;
            CONTINUE WHEN v_head <= v_pos;
            -- the lease, locked for this transaction: nobody takes it until it ends
            SELECT c.position INTO v_pos FROM shardq.cursor c
             WHERE c.subscription_id = v_sub.id AND c.shard_no = v_shard AND c.lease_instance = v_me AND c.lease_until > now()
               FOR UPDATE;
            CONTINUE WHEN NOT FOUND OR v_head <= v_pos;
            v_now := floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint;
            v_taken := '{}';
            v_delivered := '{}';
            v_after := v_pos;
          <<rows>>
          LOOP
            EXIT WHEN v_left = 0 OR v_after >= v_head;
            -- the next run of the dequeue log (consumed by other commits): passed when it starts here,
            -- else the segment ends before it; and a segment holds only as many numbers as may be
            -- taken (the numbers up to the head are gapless, so a BETWEEN reads no row it does not
            -- need; a selector's segment is longer, its rows filtered in PostgreSQL)
            SELECT l.first_seq, l.last_seq INTO v_run_first, v_run_last FROM shardq.dequeue_range l
             WHERE l.subscription_id = v_sub.id AND l.shard_no = v_shard AND l.last_seq > v_after
             ORDER BY l.first_seq LIMIT 1;
            IF v_run_first <= v_after + 1 THEN
                v_after := v_run_last;
                CONTINUE;
            END IF;
            v_upto := least(v_head, coalesce(v_run_first - 1, v_head),
                            v_after + CASE WHEN v_selective THEN greatest(v_left, 5000) ELSE greatest(v_left, 16) END);
            v_full := true;
            FOR m IN EXECUTE format(
                    'SELECT m.seq, m.header, m.body, m.properties, m.priority, m.expires_at,'
                    '       coalesce(a.attempts, 0) AS attempts, %1$s AS wanted'
                    '  FROM shardq.%2$I m'
                    '  CROSS JOIN LATERAL (SELECT shardq.header_message_id(m.header) AS id, shardq.header_timestamp(m.header) AS ts) j'
                    '  LEFT JOIN shardq.delivery_attempt a ON a.subscription_id = $1 AND a.shard_no = $2 AND a.seq = m.seq'
                    ' WHERE m.shard_no = $2 AND m.seq > $3 AND m.seq <= $4'
                    '   AND (NOT %1$s OR %3$s)'
                    ' ORDER BY m.seq',
                    v_wanted, 'm_' || d.id, v_sel_sql)
                USING v_sub.id, v_shard, v_after, v_upto, NULL, v_lits, coalesce(v_from_props, 0)
            LOOP
                IF v_left = 0 THEN
                    v_full := false; -- v_after stays at the last row handled
                    EXIT;
                END IF;
                v_after := m.seq;
                v_taken := v_taken || m.seq;
                CONTINUE WHEN NOT m.wanted;
                IF m.expires_at > 0 AND m.expires_at < v_now THEN
                    IF d.expiry_name IS NOT NULL THEN
                        PERFORM shardq.receive_move_aside(d.name, d.expiry_name, m.header, m.body, m.properties, m.priority, 0,
                            jsonb_build_object('JMS_ShardQ_DeadLetterReason', 'expired at ' || shardq.java_instant(m.expires_at),
                                               'JMS_ShardQ_OriginalDestination', d.name, 'JMS_ShardQ_ActualExpiry', m.expires_at));
                    END IF;
                    CONTINUE;
                END IF;
                IF m.attempts >= d.max_attempts THEN
                    PERFORM shardq.receive_move_aside(d.name, d.dead_letters, m.header, m.body, m.properties, m.priority, m.expires_at,
                        jsonb_build_object('JMS_ShardQ_DeadLetterReason',
                                           'delivery failed ' || m.attempts || ' times; ' || d.name || ' allows ' || d.max_attempts || ' attempts',
                                           'JMS_ShardQ_OriginalDestination', d.name));
                    CONTINUE;
                END IF;
                h := shardq.header_fields(m.header);
                v_body := CASE WHEN h.version = 2
                               THEN (SELECT coalesce(string_agg(c.data, ''::bytea ORDER BY c.chunk_no), '\x'::bytea)
                                       FROM shardq.large_body_chunk c WHERE c.body_id = h.body_id)
                               ELSE m.body END;
                v_delivered := v_delivered || m.seq;
                v_left := v_left - 1;
                message_id := h.message_id;
                body_type := (ARRAY['none', 'text', 'bytes', 'map', 'stream', 'object'])[h.body_type + 1];
                body_text := CASE WHEN h.body_type = 1 AND v_body <> '\xff'::bytea THEN convert_from(v_body, 'UTF8') END;
                body_bytes := CASE WHEN h.body_type <> 1 THEN v_body END;
                properties := nullif(m.properties - 'JMSCorrelationID' - 'JMSType', '{}');
                correlation_id := h.correlation_id;
                type := h.type;
                reply_to := h.reply_to;
                priority := m.priority;
                "timestamp" := to_timestamp(h.ts / 1000.0);
                expiration := CASE WHEN m.expires_at > 0 THEN to_timestamp(m.expires_at / 1000.0) END;
                delivery_count := m.attempts + 1;
                shard := v_shard;
                seq := m.seq;
                RETURN NEXT;
            END LOOP;
            IF v_full THEN
                v_after := v_upto;
            END IF;
          END LOOP rows;
            CONTINUE WHEN cardinality(v_taken) = 0;
            -- consumed in this transaction: the cursor moves over a run that starts at it (and over
            -- the log ahead of it), any other run is logged; attempts at or below the cursor go
            v_moved := v_pos;
            FOR v_runs IN SELECT min(t) AS first_seq, max(t) AS last_seq
                            FROM unnest(v_taken) WITH ORDINALITY AS u (t, o) GROUP BY t - o ORDER BY 1 LOOP
                IF v_runs.first_seq = v_moved + 1 THEN
                    v_moved := v_runs.last_seq;
                ELSE
                    INSERT INTO shardq.dequeue_range (subscription_id, shard_no, first_seq, last_seq)
                    VALUES (v_sub.id, v_shard, v_runs.first_seq, v_runs.last_seq);
                END IF;
            END LOOP;
            IF v_moved > v_pos THEN
                LOOP
                    SELECT l.last_seq INTO v_after FROM shardq.dequeue_range l
                     WHERE l.subscription_id = v_sub.id AND l.shard_no = v_shard AND l.first_seq = v_moved + 1;
                    EXIT WHEN NOT FOUND;
                    v_moved := v_after;
                END LOOP;
                UPDATE shardq.cursor c SET position = v_moved
                 WHERE c.subscription_id = v_sub.id AND c.shard_no = v_shard AND c.position = v_pos AND c.lease_instance = v_me;
                DELETE FROM shardq.dequeue_range l
                 WHERE l.subscription_id = v_sub.id AND l.shard_no = v_shard AND l.last_seq <= v_moved;
                DELETE FROM shardq.delivery_attempt a
                 WHERE a.subscription_id = v_sub.id AND a.shard_no = v_shard AND a.seq <= v_moved;
            END IF;
            -- what this transaction received: counted as a failed delivery if it rolls back
            FOR v_runs IN SELECT min(t) AS first_seq, max(t) AS last_seq
                            FROM unnest(v_delivered) WITH ORDINALITY AS u (t, o) GROUP BY t - o ORDER BY 1 LOOP
                v_mem := v_mem || jsonb_build_array(jsonb_build_array(v_sub.id, v_shard, v_runs.first_seq, v_runs.last_seq,
                                                                      v_xid::text::numeric, NULL));
            END LOOP;
        END LOOP;
        EXIT WHEN v_left < p_max OR clock_timestamp() >= v_deadline;
        -- nothing yet: PL/pgSQL cannot wait for a NOTIFY, so it looks again with back-off
        PERFORM pg_sleep(least(v_sleep, greatest(0, extract(epoch FROM v_deadline - clock_timestamp()))));
        v_sleep := least(v_sleep * 2, 0.2);
    END LOOP;
    -- the session's memory, written once per call (a DEALLOCATE and a PREPARE), when it changed
    IF v_mem IS DISTINCT FROM v_mem0 THEN
        PERFORM shardq.receive_memory_keep(v_mem);
    END IF;
END $$;

-- Java's Instant.toString of epoch milliseconds (the JVM's expiry reason says when in that form).
CREATE OR REPLACE FUNCTION shardq.java_instant(p_ms bigint) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT to_char(to_timestamp(p_ms / 1000) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS')
        || CASE WHEN p_ms % 1000 = 0 THEN '' ELSE '.' || lpad((p_ms % 1000)::text, 3, '0') END || 'Z'
$$;

-- Up to max_messages messages of a queue, taken in the caller's transaction: its commit consumes
-- them, its rollback gives them back with their delivery count raised (the queue's max_attempts
-- end in its dead-letter queue). wait: how long to look for a first message when none is there
-- (READ COMMITTED). selector: a JMS message selector; the messages it does not select stay for
-- other consumers.
CREATE OR REPLACE FUNCTION shardq.receive(
    queue text, max_messages integer DEFAULT 1, wait interval DEFAULT '0', selector text DEFAULT NULL)
RETURNS TABLE (message_id text, body_type text, body_text text, body_bytes bytea, properties jsonb,
               correlation_id text, type text, reply_to text, priority integer, "timestamp" timestamptz,
               expiration timestamptz, delivery_count integer, shard integer, seq bigint)
LANGUAGE sql AS $$
    SELECT * FROM shardq.receive_messages('queue', queue, '', max_messages, wait, selector)
$$;

-- The same for a durable subscription of a topic.
CREATE OR REPLACE FUNCTION shardq.receive_subscription(
    topic text, subscription text, max_messages integer DEFAULT 1, wait interval DEFAULT '0', selector text DEFAULT NULL)
RETURNS TABLE (message_id text, body_type text, body_text text, body_bytes bytea, properties jsonb,
               correlation_id text, type text, reply_to text, priority integer, "timestamp" timestamptz,
               expiration timestamptz, delivery_count integer, shard integer, seq bigint)
LANGUAGE sql AS $$
    SELECT * FROM shardq.receive_messages('topic', topic, subscription, max_messages, wait, selector)
$$;

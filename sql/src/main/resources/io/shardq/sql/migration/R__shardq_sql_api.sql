-- R__shardq_sql_api: ShardQ from SQL (issue 28): send to a queue or publish to a topic from any
-- transaction, in any language, a trigger included:
--   select shardq.send('orders', 'order 42', properties => '{"region": "eu", "total": 99.5}');
--   select shardq.send_batch('orders', array['a', 'b', 'c']);
-- What a JMS consumer receives: a TextMessage (text or jsonb body) or a BytesMessage (bytea), with
-- the properties (a JSON number without a fractional part as a long, with one as a double),
-- JMSCorrelationID, JMSType, JMSReplyTo, JMSPriority and JMSExpiration given, JMSMessageID
-- "ID:sql-<uuid>-<n>" (one uuid per call), persistent. docs/design/sql-api.md says how and why; SqlSendTest proves it.
-- Repeatable: CREATE OR REPLACE only, signatures backward compatible. User data reaches SQL only
-- as parameters: the one dynamic statement names a leaf table built from numeric ids.

-- A string field of the binary header as HeaderCodec writes it: a present flag, then the length
-- (4 bytes, big-endian) and the UTF-8 bytes.
CREATE OR REPLACE FUNCTION shardq.header_text(p text) RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN p IS NULL THEN '\x00'::bytea
                ELSE '\x01'::bytea || int4send(octet_length(convert_to(p, 'UTF8'))) || convert_to(p, 'UTF8') END
$$;

-- (shardq.header_v3, a header per message, was replaced by building the headers once per call.)
DROP FUNCTION IF EXISTS shardq.header_v3(integer, text, bigint, text, text, text);

-- A sender's properties, checked as a JMS producer's are: a JSON object of names (Java
-- identifiers, ASCII here; not a selector keyword; not JMS... but JMSX... and JMS_...) to strings,
-- numbers (a long without a fractional part, a double with one) and booleans. JSON nulls are left
-- out. NULL when nothing is left.
CREATE OR REPLACE FUNCTION shardq.check_properties(p jsonb) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    k text;
    v jsonb;
    out jsonb := '{}';
BEGIN
    IF p IS NULL OR p = 'null'::jsonb THEN
        RETURN NULL;
    END IF;
    IF jsonb_typeof(p) <> 'object' THEN
        RAISE EXCEPTION 'properties must be a JSON object of names to strings, numbers and booleans, not a JSON %', jsonb_typeof(p)
            USING ERRCODE = '22023';
    END IF;
    FOR k, v IN SELECT e.key, e.value FROM jsonb_each(p) e LOOP
        IF k !~ '^[A-Za-z_$][A-Za-z0-9_$]*$' THEN
            RAISE EXCEPTION 'property name "%" is invalid: expected a Java identifier (ASCII letters, digits, _ and $, not starting with a digit)', left(k, 120)
                USING ERRCODE = '22023';
        ELSIF upper(k) IN ('NULL', 'TRUE', 'FALSE', 'NOT', 'AND', 'OR', 'BETWEEN', 'LIKE', 'IN', 'IS', 'ESCAPE') THEN
            RAISE EXCEPTION 'property name "%" is reserved: it is a selector keyword', k USING ERRCODE = '22023';
        ELSIF k LIKE 'JMS%' AND k NOT LIKE 'JMSX%' AND k NOT LIKE 'JMS\_%' THEN
            RAISE EXCEPTION 'property name "%" is reserved: names starting with JMS are header fields (pass correlation_id, type, reply_to, priority as arguments)', k
                USING ERRCODE = '22023';
        END IF;
        CASE jsonb_typeof(v)
            WHEN 'null' THEN
                CONTINUE;
            WHEN 'string', 'boolean' THEN
                NULL;
            WHEN 'number' THEN
                IF scale(v::numeric) = 0 AND abs(v::numeric) > 9223372036854775807 THEN
                    RAISE EXCEPTION 'property "%" is %, beyond a long: write it with a fractional part (%.0) to send a double', k, v, v
                        USING ERRCODE = '22003';
                ELSIF scale(v::numeric) > 0 AND abs(v::numeric) > 1.7976931348623157e308 THEN
                    RAISE EXCEPTION 'property "%" is %, beyond a double', k, left(v::text, 40) USING ERRCODE = '22003';
                END IF;
            ELSE
                RAISE EXCEPTION 'property "%" is a JSON %: expected a string, a number or a boolean', k, jsonb_typeof(v)
                    USING ERRCODE = '22023';
        END CASE;
        out := out || jsonb_build_object(k, v);
    END LOOP;
    RETURN CASE WHEN out = '{}' THEN NULL ELSE out END;
END $$;

-- The backend's shard of destination p_destination for its sends from SQL (sends, dead letters
-- and expired messages moved aside by shardq.receive), kept for the session (set_config; a
-- rollback forgets it and the same steps find the same shard again): from a hash of the backend's
-- pid, the first of the p_active shards that no other SQL session holds (a session-level advisory
-- lock, kept until the session ends), as a JVM producer owns its shards; so one session's messages
-- stay on one shard, in order, and two sessions do not wait for each other's shard row lock until
-- commit. With more sending sessions than shards, the rest share their hashed shard.
-- Measured: with the hash alone, 4 and 16 SQL producers on 8 shards collided and ran at
-- 0.36-0.58x of the JMS producers.
CREATE OR REPLACE FUNCTION shardq.session_shard(p_destination integer, p_active integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    v_shard integer := nullif(current_setting('shardq.send_shard_' || p_destination, true), '')::integer;
    v_pref integer;
BEGIN
    IF v_shard IS NULL OR v_shard >= p_active THEN
        v_pref := ((hashint4(pg_backend_pid())::bigint % p_active) + p_active) % p_active;
        v_shard := v_pref;
        FOR k IN 0 .. p_active - 1 LOOP
            IF pg_try_advisory_lock(hashtext('shardq.send'), p_destination * 256 + (v_pref + k) % p_active) THEN
                v_shard := (v_pref + k) % p_active;
                EXIT;
            END IF;
        END LOOP;
        PERFORM set_config('shardq.send_shard_' || p_destination, v_shard::text, false);
    END IF;
    RETURN v_shard;
END $$;

-- Stores messages whose headers and bodies are built (p_properties and p_bits: NULL, or one per
-- message) in shard p_shard of destination p_destination, in the caller's transaction: the
-- sequence numbers reserved with the shard row locked until the transaction ends (the visibility
-- rule, docs/design/enqueue.md), one INSERT per slice, and the wake-up of a waiting consumer as a
-- NOTIFY in the transaction (delivered at its commit, never for a rollback). The leaf's name is
-- built from numeric ids; every value is a parameter. Returns the first sequence number.
CREATE OR REPLACE FUNCTION shardq.store_rows(
    p_destination integer,
    p_shard integer,
    p_slice_size integer,
    p_headers bytea[],
    p_bodies bytea[],
    p_properties jsonb[],
    p_bits bytea[],
    p_now bigint,
    p_expires bigint,
    p_priority integer)
RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    n integer := cardinality(p_headers);
    v_first bigint;
    v_notified bigint;
    v_seq bigint;
    v_slot integer;
    v_last bigint;
    v_count integer;
    v_found bigint[];
    i integer := 1;
BEGIN
    -- the reservation and the first slice in one statement (the slice row of a sequence number
    -- the reservation gives is only ever assigned under this shard row's lock)
    UPDATE shardq.shard h
       SET next_seq = h.next_seq + n, waiter = NULL, notified = h.waiter
     WHERE h.destination_id = p_destination AND h.shard_no = p_shard
    RETURNING h.next_seq - n, h.notified,
              (SELECT ARRAY[s.slot::bigint, s.last_seq] FROM shardq.slice s
                WHERE s.destination_id = p_destination AND s.shard_no = p_shard
                  AND s.first_seq <= h.next_seq - n AND s.last_seq >= h.next_seq - n)
      INTO v_first, v_notified, v_found;
    v_seq := v_first;
    WHILE i <= n LOOP
        IF i > 1 THEN
            SELECT ARRAY[s.slot::bigint, s.last_seq] INTO v_found FROM shardq.slice s
             WHERE s.destination_id = p_destination AND s.shard_no = p_shard AND s.first_seq <= v_seq AND s.last_seq >= v_seq;
        END IF;
        IF v_found IS NULL THEN
            v_slot := shardq.assign_slice(p_destination, p_shard, v_seq, p_slice_size);
            v_last := v_seq + p_slice_size - 1;
        ELSE
            v_slot := v_found[1];
            v_last := v_found[2];
        END IF;
        v_count := least(n - i + 1, v_last - v_seq + 1);
        IF p_bits IS NULL AND p_properties IS NULL THEN
            -- no properties and no bitmap: two arrays fewer to plan and unnest (measured 40 us a call)
            EXECUTE format('INSERT INTO shardq.%I (shard_no, slot, seq, enqueued_at, deliver_at, expires_at, priority,'
                           ' header, body)'
                           ' SELECT $1, $2, $3 + u.o - 1, $4, 0, $5, $6, u.h, u.b'
                           ' FROM unnest($7::bytea[], $8::bytea[]) WITH ORDINALITY AS u (h, b, o)',
                           'm_' || p_destination || '_' || p_shard || '_' || v_slot)
                USING p_shard, v_slot, v_seq, p_now, p_expires, p_priority,
                      -- all in one slice (the usual case): the arrays as they are, not copies of a part
                      CASE WHEN v_count = n THEN p_headers ELSE p_headers[i : i + v_count - 1] END,
                      CASE WHEN v_count = n THEN p_bodies ELSE p_bodies[i : i + v_count - 1] END;
        ELSE
            EXECUTE format('INSERT INTO shardq.%I (shard_no, slot, seq, enqueued_at, deliver_at, expires_at, priority,'
                           ' subscribers, header, body, properties)'
                           ' SELECT $1, $2, $3 + u.o - 1, $4, 0, $5, $6, u.s, u.h, u.b, u.p'
                           ' FROM unnest($7::bytea[], $8::bytea[], $9::jsonb[], $10::bytea[]) WITH ORDINALITY AS u (h, b, p, s, o)',
                           'm_' || p_destination || '_' || p_shard || '_' || v_slot)
                USING p_shard, v_slot, v_seq, p_now, p_expires, p_priority,
                      p_headers[i : i + v_count - 1], p_bodies[i : i + v_count - 1],
                      coalesce(p_properties[i : i + v_count - 1], array_fill(NULL::jsonb, ARRAY[v_count])),
                      coalesce(p_bits[i : i + v_count - 1], array_fill(NULL::bytea, ARRAY[v_count]));
        END IF;
        i := i + v_count;
        v_seq := v_seq + v_count;
    END LOOP;
    IF v_notified IS NOT NULL THEN
        PERFORM pg_notify('shardq_wake', p_destination || '/' || p_shard);
    END IF;
    RETURN v_first;
END $$;

-- The engine of every send from SQL: messages with bodies p_bodies (already bytes: UTF-8 text
-- or raw) of one body type, each with its properties (p_properties: NULL, or one per body), into
-- queue or topic p_destination, in the caller's transaction; returns their JMSMessageIDs.
--   * privileges: the calling role needs the queue's send privilege (42501 naming it);
--   * the shard: one per backend, held for the session (see below), so one SQL session's messages
--     arrive in the order it sent them, as one JMS session's do;
--   * the visibility rule: the sequence numbers are reserved with the shard row locked until the
--     transaction ends, as the JVM's enqueue does (docs/design/enqueue.md);
--   * the wake-up of a waiting consumer is a NOTIFY in the transaction: delivered at its commit,
--     never for a rollback;
--   * a topic: each message stored once with the bitmap of the subscriptions whose selector
--     selects it (shardq.selector_sql), not stored when none does, as a JMS publish; noLocal
--     excludes nothing (a SQL sender has no connection), and the topic's flow control does not
--     apply;
--   * a delivery delay sends to shardq.scheduled_message, which the maintenance leader moves into a
--     shard when due (computing a topic's bitmaps then), as the JVM's delayed sends.
CREATE OR REPLACE FUNCTION shardq.send_messages(
    p_destination text,
    p_body_type integer,
    p_bodies bytea[],
    p_properties jsonb[],
    p_correlation_id text,
    p_type text,
    p_reply_to text,
    p_priority integer,
    p_delay interval,
    p_time_to_live interval)
RETURNS text[]
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    v_role name := shardq.calling_role();
    d record;
    n integer := coalesce(cardinality(p_bodies), 0);
    v_now bigint := floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint;
    v_deliver bigint := 0;
    v_expires bigint := 0;
    v_reply text;
    v_reply_kind text;
    v_ids text[] := '{}';
    v_headers bytea[] := '{}';
    v_props jsonb[] := '{}';
    v_p jsonb;
    v_prefix bytea;
    v_suffix bytea;
    v_uuid text;
    v_shard integer;
    v_bits bytea[];
    v_b bytea;
    v_sub record;
    v_sql text;
    v_lits text[];
    v_matched integer[];
    i integer;
BEGIN
    IF p_destination IS NULL OR p_destination !~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$' THEN
        PERFORM shardq.check_name(p_destination); -- its refusal
    END IF;
    -- the send privilege is INSERT on the destination's table (shardq.has_privilege's 'send'),
    -- asked in the same statement (measured: shardq.has_privilege was 23 us of a 380 us call)
    SELECT x.id, x.kind, x.enqueue_enabled, x.shard_count, x.draining_from, x.slice_size,
           pg_catalog.has_table_privilege(v_role, 'shardq.m_' || x.id, 'INSERT') AS may_send INTO d
      FROM shardq.destination x WHERE x.name = p_destination;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'destination "%" does not exist', p_destination USING ERRCODE = '42704';
    END IF;
    IF NOT d.may_send THEN
        RAISE EXCEPTION 'role "%" may not send to % "%": it needs the send privilege on it (shardq.grant(''%'', ''%'', ''send''), run by an administrator of it)',
            v_role, d.kind, p_destination, p_destination, v_role USING ERRCODE = '42501';
    END IF;
    IF NOT d.enqueue_enabled THEN
        RAISE EXCEPTION '% "%" is stopped for sending (shardq.start_queue(''%''))', d.kind, p_destination, p_destination
            USING ERRCODE = '55000';
    END IF;
    IF p_priority IS NULL OR p_priority NOT BETWEEN 0 AND 9 THEN
        RAISE EXCEPTION 'priority % is invalid: expected 0 to 9', p_priority USING ERRCODE = '22023';
    END IF;
    IF p_delay < interval '0' THEN
        RAISE EXCEPTION 'delay % is invalid: expected zero or more', p_delay USING ERRCODE = '22023';
    END IF;
    IF p_time_to_live <= interval '0' THEN
        RAISE EXCEPTION 'time to live % is invalid: expected more than zero (NULL: the message never expires)', p_time_to_live
            USING ERRCODE = '22023';
    END IF;
    IF p_properties IS NOT NULL AND cardinality(p_properties) <> n THEN
        RAISE EXCEPTION '% properties given for % bodies: expected one per body, or none', cardinality(p_properties), n
            USING ERRCODE = '22023';
    END IF;
    IF n = 0 THEN
        RETURN v_ids;
    END IF;
    IF p_delay > interval '0' THEN
        v_deliver := v_now + floor(extract(epoch FROM p_delay) * 1000)::bigint;
    END IF;
    IF p_time_to_live IS NOT NULL THEN
        v_expires := greatest(v_now, v_deliver) + floor(extract(epoch FROM p_time_to_live) * 1000)::bigint;
    END IF;
    IF p_reply_to IS NOT NULL THEN
        IF p_reply_to ~ '^(queue|topic):' THEN
            v_reply := p_reply_to;
        ELSE
            SELECT x.kind INTO v_reply_kind FROM shardq.destination x WHERE x.name = p_reply_to;
            v_reply := coalesce(v_reply_kind, 'queue') || ':' || p_reply_to;
        END IF;
    END IF;
    IF array_position(p_bodies, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'body % is NULL: send an empty text or bytes instead', array_position(p_bodies, NULL)
            USING ERRCODE = '22004';
    END IF;
    -- set-based, not per message: the ids, the headers (only the id differs between them: the
    -- common parts are built once) and the properties (none given: NULL, unless a correlation id
    -- or a type is; measured, building each header with shardq.header_v3 was half of the call)
    -- the ids: 'ID:sql-', one uuid per call, and the message's number in the call ('-1', '-2',
    -- ...): unique, and one random draw per call instead of one per message. The header fields
    -- after the id are the same for every message of the call: built once (measured:
    -- with shardq.header_text for every message and a uuid per message, the ids and
    -- headers took 185 us of a 10-message call)
    -- (measured: shardq.header_text is a function call and a plan each, 15 us for three NULLs)
    IF p_correlation_id IS NULL AND p_type IS NULL AND v_reply IS NULL THEN
        v_suffix := int8send(v_now) || '\x0000000000'::bytea;
    ELSE
        v_suffix := int8send(v_now) || shardq.header_text(p_correlation_id) || shardq.header_text(p_type)
                    || shardq.header_text(v_reply) || '\x0000'::bytea;
    END IF;
    v_prefix := '\x03'::bytea || set_byte('\x00'::bytea, 0, p_body_type) || '\x01'::bytea;
    v_uuid := 'ID:sql-' || gen_random_uuid() || '-';
    -- over the bodies' ordinals, not generate_series(1, n): its row estimate follows n, so every
    -- call got a custom plan (29 us of planning a call, measured); unnest's does not
    SELECT array_agg(v_uuid || u.g ORDER BY u.g),
           array_agg(v_prefix || int4send(octet_length(v_uuid || u.g)) || convert_to(v_uuid || u.g, 'UTF8') || v_suffix ORDER BY u.g)
      INTO v_ids, v_headers
      FROM unnest(p_bodies) WITH ORDINALITY AS u (b, g);
    v_p := jsonb_strip_nulls(jsonb_build_object('JMSCorrelationID', p_correlation_id, 'JMSType', p_type));
    IF p_properties IS NULL THEN
        v_props := array_fill(CASE WHEN v_p = '{}' THEN NULL ELSE v_p END, ARRAY[n]);
    ELSE
        v_props := ARRAY(SELECT nullif(coalesce(shardq.check_properties(x), '{}') || v_p, '{}')
                           FROM unnest(p_properties) WITH ORDINALITY AS u (x, o) ORDER BY o);
    END IF;
    IF v_deliver > 0 THEN
        INSERT INTO shardq.scheduled_message (destination_id, deliver_at, expires_at, priority, header, body, properties)
        SELECT d.id, v_deliver, v_expires, p_priority, u.h, u.b, u.p
          FROM unnest(v_headers, p_bodies, v_props) AS u (h, b, p);
        RETURN v_ids;
    END IF;
    v_shard := shardq.session_shard(d.id, coalesce(d.draining_from, d.shard_count));
    IF d.kind = 'topic' THEN
        v_bits := array_fill(NULL::bytea, ARRAY[n]);
        -- the shard row first (the visibility rule): creating or dropping a subscription updates
        -- every shard row of the topic, so the subscriptions read under this lock stay as they are
        -- until the transaction ends (docs/design/topics.md, "Bit reuse is safe by the shard lock")
        PERFORM 1 FROM shardq.shard WHERE destination_id = d.id AND shard_no = v_shard FOR UPDATE;
        FOR v_sub IN SELECT x.bit, x.selector FROM shardq.subscription x WHERE x.destination_id = d.id ORDER BY x.bit LOOP
            IF v_sub.selector IS NULL OR btrim(v_sub.selector) = '' THEN
                v_matched := ARRAY(SELECT generate_series(1, n));
            ELSE
                -- each subscription's selector once over all the messages, translated by
                -- shardq.selector_sql: $1 its literals, $2 the properties, $3 the priority, $4 the
                -- timestamp, $5 the message ids
                SELECT x.sql, x.literal_values INTO v_sql, v_lits
                  FROM shardq.selector_sql(v_sub.selector, 'm.properties', '$3', '$1', 'm.id', '$4') x;
                EXECUTE format('SELECT coalesce(array_agg(m.o), ''{}'') FROM unnest($2::jsonb[], $5::text[])'
                               ' WITH ORDINALITY AS m (properties, id, o) WHERE %s', v_sql)
                   INTO v_matched USING v_lits, v_props, p_priority, v_now, v_ids;
            END IF;
            FOREACH i IN ARRAY v_matched LOOP
                -- bit b is byte b / 8, bit b % 8 (set_bit's numbering), trimmed after the highest
                v_b := coalesce(v_bits[i], '\x'::bytea);
                IF length(v_b) <= v_sub.bit / 8 THEN
                    v_b := v_b || decode(repeat('00', v_sub.bit / 8 + 1 - length(v_b)), 'hex');
                END IF;
                v_bits[i] := set_bit(v_b, v_sub.bit, 1);
            END LOOP;
        END LOOP;
        -- a message no subscription wants is not stored and takes no sequence number
        SELECT coalesce(array_agg(u.h ORDER BY u.o), '{}'), coalesce(array_agg(u.b ORDER BY u.o), '{}'),
               coalesce(array_agg(u.p ORDER BY u.o), '{}'), coalesce(array_agg(u.s ORDER BY u.o), '{}')
          INTO v_headers, p_bodies, v_props, v_bits
          FROM unnest(v_headers, p_bodies, v_props, v_bits) WITH ORDINALITY AS u (h, b, p, s, o)
         WHERE u.s IS NOT NULL;
        n := cardinality(v_headers);
        IF n = 0 THEN
            RETURN v_ids;
        END IF;
    END IF;
    PERFORM shardq.store_rows(d.id, v_shard, d.slice_size, v_headers, p_bodies,
                              CASE WHEN p_properties IS NULL AND v_p = '{}' THEN NULL ELSE v_props END,
                              v_bits, v_now, v_expires, p_priority);
    RETURN v_ids;
END $$;

-- One message: a text body (a JMS TextMessage), bytes (a BytesMessage) or JSON (a TextMessage
-- holding the JSON text). Returns its JMSMessageID.
CREATE OR REPLACE FUNCTION shardq.send(
    destination text,
    body text,
    properties jsonb DEFAULT NULL,
    correlation_id text DEFAULT NULL,
    type text DEFAULT NULL,
    reply_to text DEFAULT NULL,
    priority integer DEFAULT 4,
    delay interval DEFAULT NULL,
    time_to_live interval DEFAULT NULL)
RETURNS text LANGUAGE sql AS $$
    SELECT (shardq.send_messages(destination, 1, ARRAY[convert_to(body, 'UTF8')], ARRAY[properties],
                                 correlation_id, type, reply_to, priority, delay, time_to_live))[1]
$$;

CREATE OR REPLACE FUNCTION shardq.send(
    destination text,
    body bytea,
    properties jsonb DEFAULT NULL,
    correlation_id text DEFAULT NULL,
    type text DEFAULT NULL,
    reply_to text DEFAULT NULL,
    priority integer DEFAULT 4,
    delay interval DEFAULT NULL,
    time_to_live interval DEFAULT NULL)
RETURNS text LANGUAGE sql AS $$
    SELECT (shardq.send_messages(destination, 2, ARRAY[body], ARRAY[properties],
                                 correlation_id, type, reply_to, priority, delay, time_to_live))[1]
$$;

CREATE OR REPLACE FUNCTION shardq.send(
    destination text,
    body jsonb,
    properties jsonb DEFAULT NULL,
    correlation_id text DEFAULT NULL,
    type text DEFAULT NULL,
    reply_to text DEFAULT NULL,
    priority integer DEFAULT 4,
    delay interval DEFAULT NULL,
    time_to_live interval DEFAULT NULL)
RETURNS text LANGUAGE sql AS $$
    SELECT (shardq.send_messages(destination, 1, ARRAY[convert_to(body::text, 'UTF8')], ARRAY[properties],
                                 correlation_id, type, reply_to, priority, delay, time_to_live))[1]
$$;

-- Many messages in one call (one reservation, one insert per slice): text or bytes bodies, the
-- properties one per body or none; the rest applies to every message. Returns the JMSMessageIDs
-- in order.
CREATE OR REPLACE FUNCTION shardq.send_batch(
    destination text,
    bodies text[],
    properties jsonb[] DEFAULT NULL,
    correlation_id text DEFAULT NULL,
    type text DEFAULT NULL,
    reply_to text DEFAULT NULL,
    priority integer DEFAULT 4,
    delay interval DEFAULT NULL,
    time_to_live interval DEFAULT NULL)
RETURNS text[] LANGUAGE sql AS $$
    SELECT shardq.send_messages(destination, 1, ARRAY(SELECT convert_to(b, 'UTF8') FROM unnest(bodies) WITH ORDINALITY AS u (b, o) ORDER BY o),
                                properties, correlation_id, type, reply_to, priority, delay, time_to_live)
$$;

CREATE OR REPLACE FUNCTION shardq.send_batch(
    destination text,
    bodies bytea[],
    properties jsonb[] DEFAULT NULL,
    correlation_id text DEFAULT NULL,
    type text DEFAULT NULL,
    reply_to text DEFAULT NULL,
    priority integer DEFAULT 4,
    delay interval DEFAULT NULL,
    time_to_live interval DEFAULT NULL)
RETURNS text[] LANGUAGE sql AS $$
    SELECT shardq.send_messages(destination, 2, bodies, properties, correlation_id, type, reply_to, priority, delay, time_to_live)
$$;

-- The refusal of a raw write to a destination's table (V004) names the way in that exists now.
CREATE OR REPLACE FUNCTION shardq.refuse_raw_write() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% on shardq.% is refused: messages are sent with JMS or shardq.send, received with JMS and purged with shardq.purge_queue, not by writing the table',
        TG_OP, TG_TABLE_NAME
        USING ERRCODE = '42501',
              HINT = 'a role reads the messages it may browse with SELECT; shardq.grants(queue) lists who may do what';
END $$;

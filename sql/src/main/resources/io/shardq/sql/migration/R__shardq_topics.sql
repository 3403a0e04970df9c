-- R__shardq_topics: topics and their subscriptions as SQL functions (issue 10), so psql users
-- administer topics as the CLI and io.shardq.broker.Admin do:
--   select shardq.create_topic('prices', shards => 8);
--   select shardq.add_subscriber('prices', 'audit', selector => 'region = ''EU''');
--   select * from shardq.subscriptions('prices');
-- The engine's own calls (subscribe, consumer_closed, unsubscribe) are here too, so the rules
-- that must hold across instances (one consumer on an unshared durable subscription, no
-- unsubscribe while a consumer is active, the subscription version) live in one place.
-- Repeatable: CREATE OR REPLACE only, signatures backward compatible. Runs after
-- R__shardq_admin.sql (Flyway orders repeatable migrations by description), whose helpers it uses.
-- Subscription names and client ids are data: compared and stored as values, never SQL text.

-- A subscription name: 1 to 255 characters, no control characters.
CREATE OR REPLACE FUNCTION shardq.check_subscription_name(p_name text) RETURNS void
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    IF p_name IS NULL OR length(p_name) < 1 OR length(p_name) > 255 OR p_name ~ '[[:cntrl:]]' THEN
        RAISE EXCEPTION 'subscription name "%" is invalid: expected 1 to 255 characters without control characters', left(p_name, 120)
            USING ERRCODE = '22023';
    END IF;
END $$;

-- The id of topic p_name; 42704 when it does not exist, 22023 when it is a queue.
CREATE OR REPLACE FUNCTION shardq.topic_id(p_name text) RETURNS integer
LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_id integer;
    v_kind text;
BEGIN
    PERFORM shardq.check_name(p_name);
    SELECT id, kind INTO v_id, v_kind FROM shardq.destination WHERE name = p_name;
    IF v_id IS NULL THEN
        RAISE EXCEPTION 'destination "%" does not exist', p_name
            USING ERRCODE = '42704', SCHEMA = 'shardq', TABLE = 'destination';
    ELSIF v_kind <> 'topic' THEN
        RAISE EXCEPTION '"%" is a %, not a topic', p_name, v_kind USING ERRCODE = '22023';
    END IF;
    RETURN v_id;
END $$;

-- What JMS calls a subscription of these flags: durable, shared durable, shared or non-durable.
CREATE OR REPLACE FUNCTION shardq.subscription_kind(p_durable boolean, p_shared boolean) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN p_durable AND p_shared THEN 'shared durable' WHEN p_durable THEN 'durable'
                WHEN p_shared THEN 'shared' ELSE 'non-durable' END
$$;

-- Open consumers of a subscription on live instances (heartbeat within p_alive seconds).
-- (plpgsql, not sql: its body is checked when it runs, so this file also applies to a schema
-- rebuilt at an older version by a migration test.)
CREATE OR REPLACE FUNCTION shardq.active_consumers(p_subscription bigint, p_alive integer DEFAULT 30) RETURNS bigint
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN (SELECT coalesce(sum(c.consumers), 0)::bigint
              FROM shardq.subscription_consumer c
              JOIN shardq.instance i ON i.id = c.instance_id
             WHERE c.subscription_id = p_subscription AND i.stopped_at IS NULL
               AND i.heartbeat_at > now() - make_interval(secs => p_alive));
END $$;

-- A change to the topic's subscriptions: holds every shard row of the topic (waiting for the
-- publishing transactions that hold them: the visibility rule) and bumps the subscription
-- version in them and in the destination row, in one transaction. Returns the new version.
CREATE OR REPLACE FUNCTION shardq.bump_subscriptions(p_topic integer) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    v_version bigint;
BEGIN
    PERFORM shardq.lock_shards(p_topic);
    UPDATE shardq.destination SET sub_version = sub_version + 1 WHERE id = p_topic RETURNING sub_version INTO v_version;
    UPDATE shardq.shard SET sub_version = v_version WHERE destination_id = p_topic;
    RETURN v_version;
END $$;

-- Creates a subscription of topic p_topic with the lowest free bit; its cursors start at the
-- shards' heads, read while bump_subscriptions holds the shard rows. Returns its id.
CREATE OR REPLACE FUNCTION shardq.new_subscription(
    p_topic integer, p_name text, p_client_id text, p_selector text, p_shared boolean, p_durable boolean,
    p_no_local boolean, p_instance bigint, p_connection text)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    v_bit integer;
    v_id bigint;
BEGIN
    PERFORM shardq.bump_subscriptions(p_topic);
    SELECT min(b) INTO v_bit
      FROM generate_series(0, (SELECT count(*) FROM shardq.subscription WHERE destination_id = p_topic)::integer) b
     WHERE NOT EXISTS (SELECT 1 FROM shardq.subscription s WHERE s.destination_id = p_topic AND s.bit = b);
    INSERT INTO shardq.subscription (destination_id, name, bit, selector, durable, client_id, shared, no_local,
                                     owner_instance, owner_connection)
         VALUES (p_topic, p_name, v_bit, p_selector, p_durable, p_client_id, p_shared, p_no_local,
                 CASE WHEN p_durable THEN NULL ELSE p_instance END, CASE WHEN p_durable THEN NULL ELSE p_connection END)
      RETURNING id INTO v_id;
    INSERT INTO shardq.cursor (subscription_id, destination_id, shard_no, position)
    SELECT v_id, p_topic, s.shard_no, s.next_seq - 1 FROM shardq.shard s WHERE s.destination_id = p_topic;
    RETURN v_id;
END $$;

-- Deletes a subscription: its cursors, attempts, consumer rows and dequeue log go with it, and
-- its bit is free for the next subscription (safe: see bump_subscriptions).
CREATE OR REPLACE FUNCTION shardq.delete_subscription(p_subscription bigint) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_topic integer := (SELECT destination_id FROM shardq.subscription WHERE id = p_subscription);
BEGIN
    IF v_topic IS NOT NULL THEN
        PERFORM shardq.bump_subscriptions(v_topic);
        DELETE FROM shardq.subscription WHERE id = p_subscription;
    END IF;
END $$;

-- The engine's subscribe, for a JMS consumer on a topic: attaches to the subscription with this
-- identity (client id, name) or creates it, and counts the consumer for p_instance.
--  * non-durable unshared (p_shared and p_durable false): always a new subscription (the caller
--    passes a unique name);
--  * an existing subscription of the other kind (shared vs unshared, durable vs not) is refused;
--  * the same topic, selector and noLocal: attach (an unshared one only without an active consumer);
--  * a different topic, selector or noLocal: a new subscription replaces it, only when it has no
--    active consumer (JMS: "the durable subscription will be deleted and a new one created").
-- Refusals are SQLSTATE 55006 (object in use) naming the reason.
CREATE OR REPLACE FUNCTION shardq.subscribe(
    p_topic text, p_name text, p_client_id text, p_selector text, p_shared boolean, p_durable boolean,
    p_no_local boolean, p_instance bigint, p_connection text, p_alive integer DEFAULT 30)
RETURNS TABLE (sub_id bigint, sub_bit integer)
LANGUAGE plpgsql AS $$
DECLARE
    v_topic integer := shardq.topic_id(p_topic);
    v_old shardq.subscription;
    v_id bigint;
    v_kind text := shardq.subscription_kind(p_durable, p_shared);
    v_old_kind text;
BEGIN
    PERFORM shardq.check_subscription_name(p_name);
    IF p_shared OR p_durable THEN
        PERFORM pg_advisory_xact_lock(hashtext('shardq.subscription'), hashtext(coalesce(p_client_id, '') || '/' || p_name));
        SELECT * INTO v_old FROM shardq.subscription s
         WHERE s.name = p_name AND s.client_id IS NOT DISTINCT FROM p_client_id AND s.name <> ''
           FOR UPDATE;
    END IF;
    IF v_old.id IS NOT NULL THEN
        v_old_kind := shardq.subscription_kind(v_old.durable, v_old.shared);
        IF v_old_kind <> v_kind THEN
            RAISE EXCEPTION 'a % subscription named "%"% exists already: it cannot be used as a % subscription',
                v_old_kind, left(p_name, 120), coalesce(' for client id "' || left(p_client_id, 120) || '"', ''), v_kind
                USING ERRCODE = '55006';
        END IF;
        IF v_old.administered AND (v_old.destination_id <> v_topic
                                   OR (p_selector IS NOT NULL AND p_selector IS DISTINCT FROM v_old.selector)) THEN
            RAISE EXCEPTION 'subscription "%" was added by an administrator to topic "%"%: attach to that topic without a selector (or with the same one), or have it removed first',
                left(p_name, 120), (SELECT d.name FROM shardq.destination d WHERE d.id = v_old.destination_id),
                coalesce(' with selector ' || left(v_old.selector, 200), '') USING ERRCODE = '55006';
        END IF;
        IF v_old.destination_id = v_topic
           AND (v_old.selector IS NOT DISTINCT FROM p_selector OR v_old.administered)
           AND v_old.no_local = p_no_local THEN
            IF NOT v_old.shared AND shardq.active_consumers(v_old.id, p_alive) > 0 THEN
                RAISE EXCEPTION 'durable subscription "%"% has an active consumer already: an unshared durable subscription has one consumer at a time',
                    left(p_name, 120), coalesce(' of client id "' || left(p_client_id, 120) || '"', '')
                    USING ERRCODE = '55006';
            END IF;
            v_id := v_old.id;
        ELSIF shardq.active_consumers(v_old.id, p_alive) > 0 THEN
            RAISE EXCEPTION 'subscription "%"% has an active consumer: it cannot be changed to another topic, selector or noLocal until its consumers close',
                left(p_name, 120), coalesce(' of client id "' || left(p_client_id, 120) || '"', '')
                USING ERRCODE = '55006';
        ELSE
            PERFORM shardq.delete_subscription(v_old.id);
        END IF;
    END IF;
    IF v_id IS NULL THEN
        v_id := shardq.new_subscription(v_topic, p_name, p_client_id, p_selector, p_shared, p_durable, p_no_local,
                                        p_instance, p_connection);
    END IF;
    INSERT INTO shardq.subscription_consumer AS c (subscription_id, instance_id, consumers) VALUES (v_id, p_instance, 1)
    ON CONFLICT (subscription_id, instance_id) DO UPDATE SET consumers = c.consumers + 1;
    RETURN QUERY SELECT s.id, s.bit FROM shardq.subscription s WHERE s.id = v_id;
END $$;

-- A consumer of subscription p_subscription on p_instance closed. A non-durable subscription goes
-- with its last consumer (on any live instance). Returns true when the subscription was deleted.
CREATE OR REPLACE FUNCTION shardq.consumer_closed(p_subscription bigint, p_instance bigint, p_alive integer DEFAULT 30)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    v_sub shardq.subscription;
BEGIN
    SELECT * INTO v_sub FROM shardq.subscription WHERE id = p_subscription FOR UPDATE;
    IF v_sub.id IS NULL THEN
        RETURN false;
    END IF;
    UPDATE shardq.subscription_consumer SET consumers = greatest(consumers - 1, 0)
     WHERE subscription_id = p_subscription AND instance_id = p_instance;
    DELETE FROM shardq.subscription_consumer WHERE subscription_id = p_subscription AND consumers = 0;
    IF NOT v_sub.durable AND shardq.active_consumers(p_subscription, p_alive) = 0 THEN
        PERFORM shardq.delete_subscription(p_subscription);
        RETURN true;
    END IF;
    RETURN false;
END $$;

-- JMS unsubscribe: deletes the durable subscription (shared or not) with this identity.
-- 42704 when there is none; 55006 while it has an active consumer.
CREATE OR REPLACE FUNCTION shardq.unsubscribe(p_client_id text, p_name text, p_alive integer DEFAULT 30)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_sub shardq.subscription;
BEGIN
    PERFORM shardq.check_subscription_name(p_name);
    PERFORM pg_advisory_xact_lock(hashtext('shardq.subscription'), hashtext(coalesce(p_client_id, '') || '/' || p_name));
    SELECT * INTO v_sub FROM shardq.subscription s
     WHERE s.name = p_name AND s.client_id IS NOT DISTINCT FROM p_client_id AND s.durable AND s.name <> ''
       FOR UPDATE;
    IF v_sub.id IS NULL THEN
        RAISE EXCEPTION 'durable subscription "%"% does not exist', left(p_name, 120),
            coalesce(' of client id "' || left(p_client_id, 120) || '"', ' (no client id)')
            USING ERRCODE = '42704', SCHEMA = 'shardq', TABLE = 'subscription';
    END IF;
    IF shardq.active_consumers(v_sub.id, p_alive) > 0 THEN
        RAISE EXCEPTION 'durable subscription "%" has an active consumer: close it before unsubscribing', left(p_name, 120)
            USING ERRCODE = '55006';
    END IF;
    PERFORM shardq.delete_subscription(v_sub.id);
END $$;

-- ---------------------------------------------------------------- administration

CREATE OR REPLACE FUNCTION shardq.create_topic(
    name text,
    shards integer DEFAULT 4,
    slice_size integer DEFAULT 20000,
    max_attempts integer DEFAULT 5,
    if_not_exists boolean DEFAULT false)
RETURNS integer LANGUAGE sql AS $$
    SELECT shardq.create_queue(name, shards => shards, slice_size => slice_size, max_attempts => max_attempts,
                               kind => 'topic', if_not_exists => if_not_exists)
$$;

CREATE OR REPLACE FUNCTION shardq.drop_topic(name text, force boolean DEFAULT false) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM shardq.topic_id(drop_topic.name);
    PERFORM shardq.drop_queue(drop_topic.name, force => drop_topic.force);
END $$;

-- Like alter_queue, plus the expiry policy: max_lag (sequence numbers a subscription may be
-- behind, over all shards) and max_age_seconds (age of its oldest unconsumed message); 0 clears
-- a limit, NULL leaves it as it is. The maintenance leader expires backlogs beyond them.
CREATE OR REPLACE FUNCTION shardq.alter_topic(
    name text,
    shards integer DEFAULT NULL,
    slice_size integer DEFAULT NULL,
    max_attempts integer DEFAULT NULL,
    dead_letter_name text DEFAULT NULL,
    max_lag bigint DEFAULT NULL,
    max_age_seconds bigint DEFAULT NULL)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_id integer := shardq.topic_id(alter_topic.name);
BEGIN
    PERFORM shardq.alter_queue(alter_topic.name, shards => alter_topic.shards, slice_size => alter_topic.slice_size,
                               max_attempts => alter_topic.max_attempts, dead_letter_name => alter_topic.dead_letter_name);
    IF max_lag IS NOT NULL THEN
        IF max_lag < 0 THEN
            RAISE EXCEPTION 'max lag % is invalid: expected 0 (no limit) or more', max_lag USING ERRCODE = '22023';
        END IF;
        UPDATE shardq.destination d SET max_lag = nullif(alter_topic.max_lag, 0) WHERE d.id = v_id;
    END IF;
    IF max_age_seconds IS NOT NULL THEN
        IF max_age_seconds < 0 THEN
            RAISE EXCEPTION 'max age % is invalid: expected 0 (no limit) or more seconds', max_age_seconds USING ERRCODE = '22023';
        END IF;
        UPDATE shardq.destination d SET max_age_seconds = nullif(alter_topic.max_age_seconds, 0) WHERE d.id = v_id;
    END IF;
END $$;

-- Adds a durable shared subscription by name (like Oracle's DBMS_AQADM.ADD_SUBSCRIBER): it
-- receives what is published from now on, whether or not a consumer is attached; JMS consumers
-- attach with createSharedDurableConsumer(topic, name) on a connection without a client id.
-- The selector is checked by the engine (Admin.addSubscriber); psql callers must give a valid one.
CREATE OR REPLACE FUNCTION shardq.add_subscriber(topic text, name text, selector text DEFAULT NULL)
RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    v_topic integer := shardq.topic_id(add_subscriber.topic);
    v_id bigint;
BEGIN
    PERFORM shardq.require_administer(add_subscriber.topic, 'add a subscriber to');
    PERFORM shardq.check_subscription_name(add_subscriber.name);
    PERFORM pg_advisory_xact_lock(hashtext('shardq.subscription'), hashtext('/' || add_subscriber.name));
    IF EXISTS (SELECT 1 FROM shardq.subscription s WHERE s.name = add_subscriber.name AND s.client_id IS NULL) THEN
        RAISE EXCEPTION 'subscription "%" already exists', left(add_subscriber.name, 120)
            USING ERRCODE = '42710', SCHEMA = 'shardq', TABLE = 'subscription';
    END IF;
    v_id := shardq.new_subscription(v_topic, add_subscriber.name, NULL, nullif(add_subscriber.selector, ''), true, true,
                                    false, NULL, NULL);
    UPDATE shardq.subscription s SET administered = true WHERE s.id = v_id;
    RETURN v_id;
END $$;

-- Removes a subscription of the topic by name (and client id, for a JMS durable subscription).
-- Refused while it has an active consumer unless force => true (its consumers then fail).
CREATE OR REPLACE FUNCTION shardq.remove_subscriber(topic text, name text, client_id text DEFAULT NULL,
                                                    force boolean DEFAULT false)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    v_topic integer := shardq.topic_id(remove_subscriber.topic);
    v_id bigint;
BEGIN
    PERFORM shardq.require_administer(remove_subscriber.topic, 'remove a subscriber from');
    SELECT s.id INTO v_id FROM shardq.subscription s
     WHERE s.destination_id = v_topic AND s.name = remove_subscriber.name
       AND s.client_id IS NOT DISTINCT FROM remove_subscriber.client_id
       FOR UPDATE;
    IF v_id IS NULL THEN
        RAISE EXCEPTION 'subscription "%"% of topic "%" does not exist', left(remove_subscriber.name, 120),
            coalesce(' of client id "' || left(remove_subscriber.client_id, 120) || '"', ''), remove_subscriber.topic
            USING ERRCODE = '42704', SCHEMA = 'shardq', TABLE = 'subscription';
    END IF;
    IF NOT force AND shardq.active_consumers(v_id) > 0 THEN
        RAISE EXCEPTION 'subscription "%" has an active consumer: close it first, or remove it with force => true',
            left(remove_subscriber.name, 120) USING ERRCODE = '55006';
    END IF;
    PERFORM shardq.delete_subscription(v_id);
END $$;

-- ---------------------------------------------------------------- monitoring

-- The enqueue time (epoch ms) of message p_seq of a shard of destination p_destination; null if
-- it is not stored (retired, or never written).
CREATE OR REPLACE FUNCTION shardq.enqueued_at(p_destination integer, p_shard integer, p_seq bigint) RETURNS bigint
LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_at bigint;
BEGIN
    IF shardq.flat_layout(p_destination) THEN
        EXECUTE format('SELECT enqueued_at FROM shardq.%I WHERE shard_no = $2 AND seq = $1', 'm_' || p_destination)
           INTO v_at USING p_seq, p_shard;
    ELSE
        EXECUTE format('SELECT enqueued_at FROM shardq.%I WHERE seq = $1', 'm_' || p_destination || '_' || p_shard)
           INTO v_at USING p_seq;
    END IF;
    RETURN v_at;
END $$;

-- One row per subscription of the topic: its kind, selector and bit; open consumers on live
-- instances; lag = sequence numbers it has not passed yet over all shards (an upper bound on the
-- messages it must still receive: messages without its bit are passed over, not received);
-- oldest_age_ms = age of its oldest message not passed; holds_retirement = a slice that every
-- other subscription has passed waits for it; what the expiry policy took from it.
CREATE OR REPLACE FUNCTION shardq.subscriptions(topic text, alive_within_seconds integer DEFAULT 30)
RETURNS TABLE (
    name             text,
    client_id        text,
    kind             text,
    selector         text,
    "bit"            integer,
    no_local         boolean,
    consumers        bigint,
    lag              bigint,
    oldest_age_ms    bigint,
    holds_retirement boolean,
    expired_seqs     bigint,
    expired_at       timestamptz,
    created_at       timestamptz)
LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_topic integer := shardq.topic_id(subscriptions.topic);
    v_now bigint := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
    r record;
    c record;
    v_others bigint;
BEGIN
    FOR r IN
        SELECT s.id, s.name, s.client_id, s.selector, s.bit, s.no_local, s.durable, s.shared, s.expired_seqs,
               s.expired_at, s.created_at
          FROM shardq.subscription s WHERE s.destination_id = v_topic ORDER BY s.bit
    LOOP
        name := r.name;
        client_id := r.client_id;
        kind := shardq.subscription_kind(r.durable, r.shared);
        selector := r.selector;
        "bit" := r.bit;
        no_local := r.no_local;
        consumers := shardq.active_consumers(r.id, alive_within_seconds);
        -- shard by shard, each statement about one shard (Citus plans no subquery in the select
        -- list of a statement over several shards)
        lag := 0;
        oldest_age_ms := NULL;
        holds_retirement := false;
        FOR c IN SELECT cu.shard_no, cu.position, sh.next_seq
                   FROM shardq.cursor cu
                   JOIN shardq.shard sh ON sh.destination_id = cu.destination_id AND sh.shard_no = cu.shard_no
                  WHERE cu.subscription_id = r.id ORDER BY cu.shard_no LOOP
            lag := lag + (c.next_seq - 1 - c.position)
                   - coalesce((SELECT sum(l.last_seq - greatest(l.first_seq, c.position + 1) + 1)
                                 FROM shardq.dequeue_range l
                                WHERE l.subscription_id = r.id AND l.shard_no = c.shard_no
                                  AND l.last_seq > c.position), 0)::bigint;
            IF c.next_seq - 1 > c.position THEN
                oldest_age_ms := least(oldest_age_ms, v_now - shardq.enqueued_at(v_topic, c.shard_no, c.position + 1));
            END IF;
            v_others := (SELECT min(o.position) FROM shardq.cursor o
                          WHERE o.destination_id = v_topic AND o.shard_no = c.shard_no AND o.subscription_id <> r.id);
            holds_retirement := holds_retirement OR EXISTS (
                SELECT 1 FROM shardq.slice sl
                 WHERE sl.destination_id = v_topic AND sl.shard_no = c.shard_no AND sl.first_seq IS NOT NULL
                   AND sl.last_seq > c.position AND sl.last_seq < c.next_seq
                   AND sl.last_seq <= coalesce(v_others, c.next_seq - 1));
        END LOOP;
        holds_retirement := coalesce(holds_retirement, false);
        expired_seqs := r.expired_seqs;
        expired_at := r.expired_at;
        created_at := r.created_at;
        RETURN NEXT;
    END LOOP;
END $$;

-- ---------------------------------------------------------------- maintenance (the leader)

-- The last sequence number in (p_from, p_to] of a shard enqueued before p_cutoff (epoch ms), by
-- binary search over primary-key lookups (enqueue times grow with the sequence numbers of a
-- shard: its writers are serialised); p_from when there is none. A missing row counts as old.
CREATE OR REPLACE FUNCTION shardq.last_enqueued_before(
    p_destination integer, p_shard integer, p_from bigint, p_to bigint, p_cutoff bigint) RETURNS bigint
LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_lo bigint := p_from;  -- known to be old enough (or the start)
    v_hi bigint := p_to + 1; -- known to be too young (or past the end)
    v_mid bigint;
    v_at bigint;
BEGIN
    WHILE v_hi - v_lo > 1 LOOP
        v_mid := v_lo + (v_hi - v_lo) / 2;
        v_at := shardq.enqueued_at(p_destination, p_shard, v_mid);
        IF v_at IS NULL OR v_at < p_cutoff THEN
            v_lo := v_mid;
        ELSE
            v_hi := v_mid;
        END IF;
    END LOOP;
    RETURN v_lo;
END $$;

-- Applies the topic's expiry policy (alter_topic max_lag, max_age_seconds): each cursor beyond
-- it jumps forward (max_lag is shared evenly by the shards), its lease is revoked so the holding
-- instance re-reads it, and the subscription row counts what was passed over. One row per cursor
-- moved, for the caller to log. Nothing happens when no policy is set.
CREATE OR REPLACE FUNCTION shardq.expire_subscriptions(p_topic integer)
RETURNS TABLE (subscription text, client_id text, shard_no integer, from_seq bigint, to_seq bigint)
LANGUAGE plpgsql AS $$
DECLARE
    v_d shardq.destination;
    v_budget bigint;
    v_cutoff bigint;
    v_to bigint;
    r record;
BEGIN
    SELECT * INTO v_d FROM shardq.destination WHERE id = p_topic;
    IF v_d.id IS NULL OR v_d.kind <> 'topic' OR (v_d.max_lag IS NULL AND v_d.max_age_seconds IS NULL) THEN
        RETURN;
    END IF;
    v_budget := CASE WHEN v_d.max_lag IS NULL THEN NULL ELSE greatest(1, v_d.max_lag / v_d.shard_count) END;
    v_cutoff := CASE WHEN v_d.max_age_seconds IS NULL THEN NULL
                     ELSE (extract(epoch FROM clock_timestamp()) * 1000)::bigint - v_d.max_age_seconds * 1000 END;
    FOR r IN
        SELECT c.subscription_id, c.shard_no, c.position, sh.next_seq, s.name, s.client_id
          FROM shardq.cursor c
          JOIN shardq.shard sh ON sh.destination_id = c.destination_id AND sh.shard_no = c.shard_no
          JOIN shardq.subscription s ON s.id = c.subscription_id
         WHERE c.destination_id = p_topic AND sh.next_seq - 1 > c.position
         ORDER BY c.subscription_id, c.shard_no
    LOOP
        v_to := r.position;
        IF v_budget IS NOT NULL AND r.next_seq - 1 - v_to > v_budget THEN
            v_to := r.next_seq - 1 - v_budget;
        END IF;
        IF v_cutoff IS NOT NULL THEN
            v_to := shardq.last_enqueued_before(p_topic, r.shard_no, v_to, r.next_seq - 1, v_cutoff);
        END IF;
        CONTINUE WHEN v_to <= r.position;
        UPDATE shardq.cursor c SET position = v_to, lease_instance = NULL, lease_until = NULL
         WHERE c.subscription_id = r.subscription_id AND c.shard_no = r.shard_no AND c.position = r.position;
        CONTINUE WHEN NOT FOUND;
        DELETE FROM shardq.dequeue_range l
         WHERE l.subscription_id = r.subscription_id AND l.shard_no = r.shard_no AND l.last_seq <= v_to;
        DELETE FROM shardq.delivery_attempt a
         WHERE a.subscription_id = r.subscription_id AND a.shard_no = r.shard_no AND a.seq <= v_to;
        UPDATE shardq.subscription s SET expired_seqs = s.expired_seqs + (v_to - r.position), expired_at = now()
         WHERE s.id = r.subscription_id;
        subscription := r.name;
        client_id := r.client_id;
        shard_no := r.shard_no;
        from_seq := r.position;
        to_seq := v_to;
        RETURN NEXT;
    END LOOP;
END $$;

-- What dead instances leave behind: their consumer counts, and the non-durable subscriptions that
-- have no consumer on a live instance any more (an unshared one lives for its owner instance; a
-- shared one for the consumers of every instance). Returns how many subscriptions were deleted.
CREATE OR REPLACE FUNCTION shardq.reap_subscriptions(p_alive integer DEFAULT 30) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    v_n integer := 0;
    r record;
BEGIN
    DELETE FROM shardq.subscription_consumer c
     WHERE NOT EXISTS (SELECT 1 FROM shardq.instance i
                        WHERE i.id = c.instance_id AND i.stopped_at IS NULL
                          AND i.heartbeat_at > now() - make_interval(secs => p_alive));
    FOR r IN
        SELECT s.id FROM shardq.subscription s
         WHERE NOT s.durable AND s.name <> ''
           AND NOT EXISTS (SELECT 1 FROM shardq.subscription_consumer c WHERE c.subscription_id = s.id)
           AND s.created_at < now() - make_interval(secs => p_alive)
           FOR UPDATE SKIP LOCKED
    LOOP
        PERFORM shardq.delete_subscription(r.id);
        v_n := v_n + 1;
    END LOOP;
    RETURN v_n;
END $$;

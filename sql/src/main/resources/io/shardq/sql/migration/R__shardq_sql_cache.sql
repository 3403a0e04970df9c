-- R__shardq_sql_cache: the key/value cache from SQL (issue 28), in the caller's transaction:
--   select shardq.cache_put('sessions', 'user:42', '{"cart": 3}', ttl => interval '30 minutes');
--   select shardq.cache_get('sessions', 'user:42');
-- Keys and values are text (the JVM's Codec.utf8) or bytea (Codec.bytes). A write takes the same
-- per-key locks, expiry buckets and bounds as the JVM's (KvRows), and sends the near caches'
-- invalidation (NOTIFY shardq_kv) in the caller's transaction: JVM near caches drop the keys at its
-- commit, never before. Privileges are PostgreSQL's (V019): read = SELECT, write = INSERT on the
-- cache's table, granted with shardq.grant_cache. docs/design/sql-api.md; SqlCacheTest.
-- Repeatable: CREATE OR REPLACE only, signatures backward compatible. User data reaches SQL only as
-- parameters: the dynamic statements name tables built from numeric ids.

-- Grants (p_grant) or revokes a role's read or write privilege on a cache (the shardq schema's
-- owner may): SELECT or INSERT on the cache's table, and with a grant USAGE on the schema.
CREATE OR REPLACE FUNCTION shardq.cache_privilege_change(p_cache text, p_role text, p_privilege text, p_grant boolean)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    v_id integer := shardq.cache_id(p_cache);
    v_table_privilege text;
BEGIN
    PERFORM shardq.require_owner(CASE WHEN p_grant THEN 'grant on cache' ELSE 'revoke on cache' END, p_cache);
    v_table_privilege := CASE lower(p_privilege) WHEN 'read' THEN 'SELECT' WHEN 'write' THEN 'INSERT' END;
    IF v_table_privilege IS NULL THEN
        RAISE EXCEPTION 'cache privilege "%" is invalid: expected read or write', left(p_privilege, 120) USING ERRCODE = '22023';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname = p_role) THEN
        RAISE EXCEPTION 'role "%" does not exist', left(p_role, 120) USING ERRCODE = '42704';
    END IF;
    IF p_grant THEN
        EXECUTE format('GRANT USAGE ON SCHEMA shardq TO %I', p_role);
        EXECUTE format('GRANT %s ON shardq.%I TO %I', v_table_privilege, 'kv_' || v_id, p_role);
    ELSE
        EXECUTE format('REVOKE %s ON shardq.%I FROM %I', v_table_privilege, 'kv_' || v_id, p_role);
    END IF;
END $$;

CREATE OR REPLACE FUNCTION shardq.grant_cache(cache text, role text, privilege text) RETURNS void
LANGUAGE sql AS $$ SELECT shardq.cache_privilege_change(cache, role, privilege, true) $$;

CREATE OR REPLACE FUNCTION shardq.revoke_cache(cache text, role text, privilege text) RETURNS void
LANGUAGE sql AS $$ SELECT shardq.cache_privilege_change(cache, role, privilege, false) $$;

-- Cache p_cache's settings when the calling role holds p_privilege ('read' or 'write') on it;
-- otherwise SQLSTATE 42501 naming the grant.
CREATE OR REPLACE FUNCTION shardq.cache_require(p_cache text, p_privilege text)
RETURNS TABLE (id integer, bucket_ms bigint, default_ttl_ms bigint, max_ttl_ms bigint, max_key_bytes integer,
               max_value_bytes integer)
LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_role name := shardq.calling_role();
BEGIN
    SELECT c.id, c.bucket_ms, c.default_ttl_ms, c.max_ttl_ms, c.max_key_bytes, c.max_value_bytes
      INTO id, bucket_ms, default_ttl_ms, max_ttl_ms, max_key_bytes, max_value_bytes
      FROM shardq.kv_cache c WHERE c.name = p_cache;
    IF NOT FOUND THEN
        PERFORM shardq.cache_id(p_cache); -- its refusal: an invalid name, or no such cache
    END IF;
    IF NOT pg_catalog.has_table_privilege(v_role, format('shardq.%I', 'kv_' || id)::regclass,
                                          CASE p_privilege WHEN 'read' THEN 'SELECT' ELSE 'INSERT' END) THEN
        RAISE EXCEPTION 'role "%" may not % cache "%": it needs the % privilege on it (shardq.grant_cache(''%'', ''%'', ''%''), run by the shardq schema''s owner)',
            v_role, p_privilege, p_cache, p_privilege, p_cache, v_role, p_privilege USING ERRCODE = '42501';
    END IF;
    RETURN NEXT;
END $$;

-- The live entries of p_keys (expiry judged by PostgreSQL's clock). A SQL read does not refresh an
-- entry's recency for the LRU eviction (the JVM's reads do, asynchronously): it writes nothing.
CREATE OR REPLACE FUNCTION shardq.cache_read(p_cache text, p_keys bytea[]) RETURNS TABLE (k bytea, v bytea)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    d record;
BEGIN
    SELECT * INTO d FROM shardq.cache_require(p_cache, 'read');
    RETURN QUERY EXECUTE format('SELECT x.k, x.v FROM shardq.%I x WHERE x.k = ANY($1)'
                                ' AND (x.expires_at IS NULL OR x.expires_at > $2)', 'kv_' || d.id)
        USING p_keys, clock_timestamp();
END $$;

-- Writes (p_values not NULL: one per key, the last of a repeated key wins) or removes (p_values
-- NULL) the entries of p_keys in the caller's transaction, as the JVM's KvRows does: the bounds
-- checked with the engine's messages, the bucket partition made when missing, a transaction lock
-- per key hash in ascending order (so writers of overlapping batches never deadlock), the old rows
-- deleted, the new inserted, and the near caches' invalidation NOTIFY (NearCaches' payloads:
-- "<cache id>:<base64 of the keys' 64-bit hashes>", 640 a payload, 16 payloads, else the whole
-- cache, "<cache id>:*"), delivered at the caller's commit. Returns the rows written, or for a
-- removal the live entries removed.
CREATE OR REPLACE FUNCTION shardq.cache_write(p_cache text, p_keys bytea[], p_values bytea[], p_ttl interval)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    d record;
    n integer := coalesce(cardinality(p_keys), 0);
    v_now bigint := floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint;
    v_ttl bigint;
    v_expires bigint;
    v_bucket bigint := 0;
    v_keys bytea[];
    v_values bytea[];
    v_live integer;
    v_hashes bigint[];
    h integer;
BEGIN
    SELECT * INTO d FROM shardq.cache_require(p_cache, 'write');
    IF p_values IS NOT NULL AND cardinality(p_values) <> n THEN
        RAISE EXCEPTION '% values given for % keys: expected one per key', cardinality(p_values), n USING ERRCODE = '22023';
    END IF;
    IF n = 0 THEN
        RETURN 0;
    END IF;
    IF array_position(p_keys, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'cache "%": a key must not be null', p_cache USING ERRCODE = '22004';
    END IF;
    IF p_values IS NOT NULL AND array_position(p_values, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'cache "%": a value must not be null (remove the key instead)', p_cache USING ERRCODE = '22004';
    END IF;
    SELECT max(octet_length(x)) INTO v_live FROM unnest(p_keys) x;
    IF v_live > d.max_key_bytes THEN
        RAISE EXCEPTION 'cache "%": a key of % bytes is longer than its limit of % bytes (max_key_bytes)', p_cache, v_live, d.max_key_bytes
            USING ERRCODE = '22023';
    END IF;
    IF p_values IS NOT NULL THEN
        SELECT max(octet_length(x)) INTO v_live FROM unnest(p_values) x;
        IF v_live > d.max_value_bytes THEN
            RAISE EXCEPTION 'cache "%": a value of % bytes is longer than its limit of % bytes (max_value_bytes)', p_cache, v_live, d.max_value_bytes
                USING ERRCODE = '22023';
        END IF;
        v_ttl := CASE WHEN p_ttl IS NULL THEN d.default_ttl_ms ELSE floor(extract(epoch FROM p_ttl) * 1000)::bigint END;
        IF v_ttl <= 0 THEN
            RAISE EXCEPTION 'cache "%": a TTL must be at least 1 ms, got %', p_cache, p_ttl USING ERRCODE = '22023';
        ELSIF v_ttl > d.max_ttl_ms THEN
            RAISE EXCEPTION 'cache "%": TTL % (% ms) is above the cache''s maximum TTL of % (max_ttl_ms %, fixed when the cache was created)',
                p_cache, p_ttl, v_ttl, make_interval(secs => d.max_ttl_ms / 1000.0), d.max_ttl_ms USING ERRCODE = '22023';
        END IF;
        IF v_ttl IS NOT NULL THEN
            v_expires := v_now + v_ttl;
            v_bucket := (v_expires - 1) / d.bucket_ms + 1;
        END IF;
        -- one row per key: the last value given for it
        SELECT array_agg(x.k ORDER BY x.k), array_agg(x.v ORDER BY x.k) INTO v_keys, v_values
          FROM (SELECT DISTINCT ON (u.k) u.k, u.v FROM unnest(p_keys, p_values) WITH ORDINALITY AS u (k, v, o)
                 ORDER BY u.k, u.o DESC) x;
    ELSE
        v_keys := ARRAY(SELECT DISTINCT x FROM unnest(p_keys) x);
    END IF;
    IF v_bucket <> 0 THEN
        IF pg_catalog.to_regclass(format('shardq.%I', shardq.kv_bucket_table(d.id, v_bucket))) IS NULL THEN
            PERFORM shardq.kv_need_bucket(d.id, v_bucket, v_now);
        END IF;
        -- a partition newer than this transaction's first use of the cache: taken in (kv_lock_partition)
        EXECUTE format('SELECT 1 FROM shardq.%I LIMIT 0', shardq.kv_bucket_table(d.id, v_bucket));
    END IF;
    -- the writers' lock of each key, in ascending hash order (kv_lock_keys)
    FOR h IN SELECT DISTINCT shardq.kv_lock_hash(x) FROM unnest(v_keys) x ORDER BY 1 LOOP
        PERFORM pg_advisory_xact_lock(d.id, h);
    END LOOP;
    EXECUTE format('WITH gone AS (DELETE FROM shardq.%I x WHERE x.k = ANY($1)'
                   ' RETURNING x.expires_at IS NULL OR x.expires_at > $2 AS live)'
                   ' SELECT count(*) FILTER (WHERE live) FROM gone', 'kv_' || d.id)
        INTO v_live USING v_keys, clock_timestamp();
    IF p_values IS NOT NULL THEN
        EXECUTE format('INSERT INTO shardq.%I (k, v, expires_at, bucket, touched_at, size)'
                       ' SELECT u.k, u.v, shardq.kv_ts($3), $4, shardq.kv_ts($5), octet_length(u.k) + octet_length(u.v)'
                       ' FROM unnest($1::bytea[], $2::bytea[]) AS u (k, v)', 'kv_' || d.id)
            USING v_keys, v_values, v_expires, v_bucket, v_now;
    END IF;
    v_hashes := ARRAY(SELECT shardq.kv_key_hash64(x) FROM unnest(v_keys) x);
    IF cardinality(v_hashes) > 640 * 16 THEN
        PERFORM pg_notify('shardq_kv', d.id || ':*');
    ELSE
        PERFORM pg_notify('shardq_kv', d.id || ':' || translate(encode(p.b, 'base64'), E'\n', ''))
           FROM (SELECT string_agg(int8send(x.h), ''::bytea ORDER BY x.o) AS b
                   FROM unnest(v_hashes) WITH ORDINALITY AS x (h, o)
                  GROUP BY (x.o - 1) / 640) p;
    END IF;
    RETURN CASE WHEN p_values IS NOT NULL THEN cardinality(v_keys) ELSE v_live END;
END $$;

-- One entry's value (text: the UTF-8 of the JVM's Codec.utf8; bytea: raw), NULL when there is none.
CREATE OR REPLACE FUNCTION shardq.cache_get(cache text, key text) RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT convert_from(r.v, 'UTF8') FROM shardq.cache_read(cache, ARRAY[convert_to(key, 'UTF8')]) r
$$;

CREATE OR REPLACE FUNCTION shardq.cache_get(cache text, key bytea) RETURNS bytea
LANGUAGE sql STABLE AS $$
    SELECT r.v FROM shardq.cache_read(cache, ARRAY[key]) r
$$;

-- The entries of the keys that have one.
CREATE OR REPLACE FUNCTION shardq.cache_get_all(cache text, keys text[]) RETURNS TABLE (key text, value text)
LANGUAGE sql STABLE AS $$
    SELECT convert_from(r.k, 'UTF8'), convert_from(r.v, 'UTF8')
      FROM shardq.cache_read(cache, ARRAY(SELECT convert_to(x, 'UTF8') FROM unnest(keys) x)) r
$$;

CREATE OR REPLACE FUNCTION shardq.cache_get_all(cache text, keys bytea[]) RETURNS TABLE (key bytea, value bytea)
LANGUAGE sql STABLE AS $$
    SELECT r.k, r.v FROM shardq.cache_read(cache, keys) r
$$;

-- Stores a value, expiring after ttl (NULL: the cache's default TTL; none: it does not expire).
CREATE OR REPLACE FUNCTION shardq.cache_put(cache text, key text, value text, ttl interval DEFAULT NULL) RETURNS void
LANGUAGE sql AS $$
    SELECT FROM shardq.cache_write(cache, ARRAY[convert_to(key, 'UTF8')], ARRAY[convert_to(value, 'UTF8')], ttl)
$$;

CREATE OR REPLACE FUNCTION shardq.cache_put(cache text, key bytea, value bytea, ttl interval DEFAULT NULL) RETURNS void
LANGUAGE sql AS $$
    SELECT FROM shardq.cache_write(cache, ARRAY[key], ARRAY[value], ttl)
$$;

-- Stores every entry (keys and values in the same order), all or none; returns how many.
CREATE OR REPLACE FUNCTION shardq.cache_put_all(cache text, keys text[], vals text[], ttl interval DEFAULT NULL)
RETURNS integer
LANGUAGE sql AS $$
    SELECT shardq.cache_write(cache,
                              ARRAY(SELECT convert_to(x, 'UTF8') FROM unnest(keys) WITH ORDINALITY AS u (x, o) ORDER BY o),
                              ARRAY(SELECT convert_to(x, 'UTF8') FROM unnest(vals) WITH ORDINALITY AS u (x, o) ORDER BY o),
                              ttl)
$$;

CREATE OR REPLACE FUNCTION shardq.cache_put_all(cache text, keys bytea[], vals bytea[], ttl interval DEFAULT NULL)
RETURNS integer
LANGUAGE sql AS $$
    SELECT shardq.cache_write(cache, keys, vals, ttl)
$$;

-- Removes an entry; true when a live one was there.
CREATE OR REPLACE FUNCTION shardq.cache_remove(cache text, key text) RETURNS boolean
LANGUAGE sql AS $$
    SELECT shardq.cache_write(cache, ARRAY[convert_to(key, 'UTF8')], NULL, NULL) > 0
$$;

CREATE OR REPLACE FUNCTION shardq.cache_remove(cache text, key bytea) RETURNS boolean
LANGUAGE sql AS $$
    SELECT shardq.cache_write(cache, ARRAY[key], NULL, NULL) > 0
$$;

-- R__shardq_kv: the key/value cache as SQL functions (issue 11), so psql users administer caches
-- as io.shardq.broker.Admin does:
--   select shardq.create_cache('prices', default_ttl_ms => 600000, max_entries => 100000);
--   select * from shardq.caches();
--   select * from shardq.cache_stats('prices');
-- and the engine's helpers for DDL it runs through SQL (see docs/design/kv-cache.md).
-- Every function is plpgsql (not LANGUAGE sql) where it reads a V008 table: its body is checked
-- when it runs, so this file also applies to a schema rebuilt at an older version by a migration
-- test. Repeatable: CREATE OR REPLACE only, signatures backward compatible.
-- Entry tables are named from numeric ids (shardq."kv_<id>", shardq."kv_<id>_<bucket>") and
-- still quoted with %I; cache names are data.

-- A cache name: the destination rule, with its own message.
CREATE OR REPLACE FUNCTION shardq.check_cache_name(p_name text) RETURNS void
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    IF p_name IS NULL OR p_name !~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$' THEN
        RAISE EXCEPTION 'cache name "%" is invalid: expected 1 to 64 characters from [A-Za-z0-9_.-], starting with a letter or digit', left(p_name, 120)
            USING ERRCODE = '22023', SCHEMA = 'shardq', TABLE = 'kv_cache', COLUMN = 'name';
    END IF;
END $$;

-- Epoch milliseconds (the engine's clock) as a timestamptz, exactly (no floating point).
CREATE OR REPLACE FUNCTION shardq.kv_ts(p_epoch_ms bigint) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT timestamptz 'epoch' + p_epoch_ms * interval '1 millisecond'
$$;

-- A key's advisory-lock hash, as the JVM computes it (io.shardq.broker.kv.ByteKey: Java's
-- Arrays.hashCode of the key's bytes, h = 31 * h + b over signed bytes, wrapping at 32 bits):
-- every writer of a key, in any language, must lock the same (cache, hash). For the SQL API
-- (docs/design/sql-api.md); KvHashesTest proves it equal to the JVM's.
CREATE OR REPLACE FUNCTION shardq.kv_lock_hash(p_key bytea) RETURNS integer
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    h bigint := 1;
    b integer;
BEGIN
    FOR i IN 0 .. length(p_key) - 1 LOOP
        b := get_byte(p_key, i);
        IF b > 127 THEN
            b := b - 256;
        END IF;
        h := (h * 31 + b) & 4294967295;
    END LOOP;
    RETURN (CASE WHEN h >= 2147483648 THEN h - 4294967296 ELSE h END)::integer;
END $$;

-- A key's 64-bit hash as near caches and their invalidation NOTIFYs name it
-- (io.shardq.broker.kv.NearCache#hash64: FNV-1a over the bytes, then a 64-bit finalizer). Its
-- multiplications wrap at 64 bits, which bigint refuses, so they run on numeric modulo 2^64.
CREATE OR REPLACE FUNCTION shardq.kv_key_hash64(p_key bytea) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    two64 constant numeric := 18446744073709551616;
    h bigint := -3750763034362895579; -- 0xcbf29ce484222325
    u numeric;
BEGIN
    FOR i IN 0 .. length(p_key) - 1 LOOP
        h := h # get_byte(p_key, i);
        u := h::numeric * 1099511628211; -- 0x100000001b3
        h := shardq.kv_wrap64(u);
    END LOOP;
    h := h # ((h >> 33) & 2147483647);
    h := shardq.kv_wrap64(h::numeric * 18397679294719823053); -- 0xff51afd7ed558ccd
    h := h # ((h >> 33) & 2147483647);
    h := shardq.kv_wrap64(h::numeric * 14181476777654086739); -- 0xc4ceb9fe1a85ec53
    RETURN h # ((h >> 33) & 2147483647);
END $$;

-- A numeric taken modulo 2^64 and read as a signed bigint (two's complement).
CREATE OR REPLACE FUNCTION shardq.kv_wrap64(p numeric) RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT (CASE WHEN m >= 9223372036854775808 THEN m - 18446744073709551616 ELSE m END)::bigint
      FROM (SELECT mod(mod(p, 18446744073709551616) + 18446744073709551616, 18446744073709551616) AS m) x
$$;

-- The id of cache p_name; 42704 naming it when there is none.
CREATE OR REPLACE FUNCTION shardq.cache_id(p_name text) RETURNS integer
LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_id integer;
BEGIN
    PERFORM shardq.check_cache_name(p_name);
    SELECT id INTO v_id FROM shardq.kv_cache WHERE name = p_name;
    IF v_id IS NULL THEN
        RAISE EXCEPTION 'cache "%" does not exist', p_name
            USING ERRCODE = '42704', SCHEMA = 'shardq', TABLE = 'kv_cache';
    END IF;
    RETURN v_id;
END $$;

-- The table of one bucket: shardq."kv_<id>_<bucket>"; bucket 0 holds the entries that never expire.
CREATE OR REPLACE FUNCTION shardq.kv_bucket_table(p_cache integer, p_bucket bigint) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT 'kv_' || p_cache || '_' || CASE WHEN p_bucket = 0 THEN 'forever' ELSE p_bucket::text END
$$;

-- Creates the missing bucket partitions of cache p_cache for entries expiring up to p_upto_ms
-- (epoch ms), from the bucket of p_from_ms on. Bucket b holds the entries expiring in
-- ((b-1)*bucket_ms, b*bucket_ms]. The maintenance leader calls it ahead of time (with a
-- lock_timeout) for the buckets the default TTL fills; a writer asks for any other bucket through
-- kv_need_bucket the first time it writes an entry expiring in it. Each partition is created on its own and then
-- attached: ATTACH PARTITION takes SHARE UPDATE EXCLUSIVE on the parent, which no reader or
-- writer conflicts with, where CREATE TABLE ... PARTITION OF would wait for every open
-- transaction that read the cache (ACCESS EXCLUSIVE). Returns how many partitions it attached.
CREATE OR REPLACE FUNCTION shardq.kv_ensure_buckets(p_cache integer, p_from_ms bigint, p_upto_ms bigint) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    v_bucket_ms bigint;
    v_durable boolean;
    v_created integer := 0;
    v_table text;
BEGIN
    -- two instances that both believe they lead (briefly) take turns: CREATE TABLE IF NOT EXISTS
    -- is not safe against a concurrent creation of the same name
    PERFORM pg_advisory_xact_lock(hashtext('shardq.kv_partitions'), p_cache);
    SELECT bucket_ms, durable INTO v_bucket_ms, v_durable FROM shardq.kv_cache WHERE id = p_cache;
    IF v_bucket_ms IS NULL THEN
        RAISE EXCEPTION 'cache with id % does not exist', p_cache
            USING ERRCODE = '42704', SCHEMA = 'shardq', TABLE = 'kv_cache';
    END IF;
    FOR b IN (p_from_ms - 1) / v_bucket_ms + 1 .. (p_upto_ms - 1) / v_bucket_ms + 1 LOOP
        v_table := shardq.kv_bucket_table(p_cache, b);
        IF pg_catalog.to_regclass(format('shardq.%I', v_table)) IS NULL THEN
            EXECUTE format('CREATE %s TABLE IF NOT EXISTS shardq.%I (LIKE shardq.%I, PRIMARY KEY (k))'
                           ' WITH (fillfactor = 90)',
                           CASE WHEN v_durable THEN '' ELSE 'UNLOGGED' END, v_table, 'kv_' || p_cache);
        END IF;
        IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_inherits
                        WHERE inhrelid = pg_catalog.to_regclass(format('shardq.%I', v_table))) THEN
            EXECUTE format('ALTER TABLE shardq.%I ATTACH PARTITION shardq.%I FOR VALUES FROM (%s) TO (%s)',
                           'kv_' || p_cache, v_table, b, b + 1);
            v_created := v_created + 1;
        END IF;
    END LOOP;
    RETURN v_created;
END $$;

-- A writer's request for the partition of bucket p_bucket, made the first time its instance
-- writes an entry expiring in that bucket (the leader makes ahead only the default TTL's). SECURITY
-- DEFINER: a role that may write a cache need not own its tables. Bounded by the writer's clock
-- (p_now_ms; expiry is judged by the instances' clocks, see architecture.md): a bucket that ended,
-- or begins beyond max TTL + two buckets, is refused, so no write makes a partition no entry
-- could be live in. Returns how many partitions it attached (0: it existed).
CREATE OR REPLACE FUNCTION shardq.kv_need_bucket(p_cache integer, p_bucket bigint, p_now_ms bigint) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    v_bucket_ms bigint;
    v_max_ttl bigint;
    v_now bigint := p_now_ms;
BEGIN
    SELECT c.bucket_ms, c.max_ttl_ms INTO v_bucket_ms, v_max_ttl FROM shardq.kv_cache c WHERE c.id = p_cache;
    IF v_bucket_ms IS NULL THEN
        RAISE EXCEPTION 'cache with id % does not exist', p_cache
            USING ERRCODE = '42704', SCHEMA = 'shardq', TABLE = 'kv_cache';
    END IF;
    IF p_bucket < 1 OR p_bucket * v_bucket_ms <= v_now OR (p_bucket - 1) * v_bucket_ms > v_now + v_max_ttl + 2 * v_bucket_ms THEN
        RAISE EXCEPTION 'no partition is made for entries expiring in (% ms, % ms]: outside the cache''s TTL range'
                        ' at % ms (max TTL % ms)', (p_bucket - 1) * v_bucket_ms, p_bucket * v_bucket_ms, v_now, v_max_ttl
            USING ERRCODE = '22023';
    END IF;
    RETURN shardq.kv_ensure_buckets(p_cache, (p_bucket - 1) * v_bucket_ms + 1, p_bucket * v_bucket_ms);
END $$;

-- Creates a cache and its entry table, with the partitions for entries that never expire and, with
-- a default TTL, for the buckets entries put now with it fall in (now + default TTL, two buckets
-- ahead); other buckets are made when first needed (kv_need_bucket), so that reads and writes
-- probe only partitions that may hold entries. max_ttl_ms defaults to the default TTL, else one
-- day; bucket_ms = max(60 s, max_ttl_ms / 16), so a cache has about 16 live bucket partitions.
-- durable => false makes every partition UNLOGGED: emptied by PostgreSQL after a crash or an
-- unclean restart, and not replicated. Returns the cache's id.
CREATE OR REPLACE FUNCTION shardq.create_cache(
    name text, durable boolean DEFAULT true, default_ttl_ms bigint DEFAULT NULL, max_ttl_ms bigint DEFAULT NULL,
    max_entries bigint DEFAULT NULL, max_bytes bigint DEFAULT NULL, max_key_bytes integer DEFAULT 1024,
    max_value_bytes integer DEFAULT 1048576, if_not_exists boolean DEFAULT false)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    v_id integer;
    v_max_ttl bigint := coalesce(max_ttl_ms, default_ttl_ms, 86400000);
    v_bucket bigint;
    v_now bigint := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
BEGIN
    PERFORM shardq.check_cache_name(name);
    PERFORM shardq.require_owner('create', name);
    IF default_ttl_ms IS NOT NULL AND default_ttl_ms <= 0 OR v_max_ttl <= 0 THEN
        RAISE EXCEPTION 'cache "%": TTLs must be positive (default_ttl_ms %, max_ttl_ms %)', name, default_ttl_ms, v_max_ttl
            USING ERRCODE = '22023';
    END IF;
    IF default_ttl_ms > v_max_ttl THEN
        RAISE EXCEPTION 'cache "%": default_ttl_ms % is above max_ttl_ms %', name, default_ttl_ms, v_max_ttl
            USING ERRCODE = '22023';
    END IF;
    IF max_entries <= 0 OR max_bytes <= 0 THEN
        RAISE EXCEPTION 'cache "%": max_entries and max_bytes must be positive or null (no bound)', name
            USING ERRCODE = '22023';
    END IF;
    IF max_key_bytes NOT BETWEEN 1 AND 65536 OR max_value_bytes NOT BETWEEN 1 AND 268435456 THEN
        RAISE EXCEPTION 'cache "%": max_key_bytes must be 1..65536 and max_value_bytes 1..268435456 (got %, %)',
            name, max_key_bytes, max_value_bytes USING ERRCODE = '22023';
    END IF;
    PERFORM pg_advisory_xact_lock(hashtext('shardq.kv_cache'), hashtext(name));
    SELECT c.id INTO v_id FROM shardq.kv_cache c WHERE c.name = create_cache.name;
    IF v_id IS NOT NULL THEN
        IF if_not_exists THEN
            RETURN v_id;
        END IF;
        RAISE EXCEPTION 'cache "%" exists already', name
            USING ERRCODE = '42710', SCHEMA = 'shardq', TABLE = 'kv_cache';
    END IF;
    v_bucket := greatest(60000, (v_max_ttl + 15) / 16);
    INSERT INTO shardq.kv_cache (name, durable, default_ttl_ms, max_ttl_ms, max_entries, max_bytes, bucket_ms,
                                 max_key_bytes, max_value_bytes)
         VALUES (name, durable, default_ttl_ms, v_max_ttl, max_entries, max_bytes, v_bucket, max_key_bytes,
                 max_value_bytes)
      RETURNING id INTO v_id;
    -- k: the encoded key; v: the encoded value; bucket: see kv_ensure_buckets (0: never expires);
    -- touched_at: coarse last use, for eviction; size: octet_length(k) + octet_length(v)
    EXECUTE format('CREATE TABLE shardq.%I (k bytea NOT NULL, v bytea NOT NULL, expires_at timestamptz,'
                   ' bucket bigint NOT NULL, touched_at timestamptz NOT NULL, size integer NOT NULL)'
                   ' PARTITION BY RANGE (bucket)', 'kv_' || v_id);
    EXECUTE format('COMMENT ON TABLE shardq.%I IS %L', 'kv_' || v_id, 'entries of cache ' || name);
    -- a role granted write (INSERT) writes through shardq.cache_put, never the table (V019)
    EXECUTE format('CREATE TRIGGER refuse_raw_write BEFORE INSERT ON shardq.%I FOR EACH STATEMENT'
                   ' WHEN (NOT shardq.is_schema_admin()) EXECUTE FUNCTION shardq.refuse_raw_kv_write()',
                   'kv_' || v_id);
    EXECUTE format('CREATE %s TABLE shardq.%I PARTITION OF shardq.%I (PRIMARY KEY (k)) FOR VALUES FROM (0) TO (1)',
                   CASE WHEN durable THEN '' ELSE 'UNLOGGED' END, shardq.kv_bucket_table(v_id, 0), 'kv_' || v_id);
    IF default_ttl_ms IS NOT NULL THEN
        PERFORM shardq.kv_ensure_buckets(v_id, v_now + default_ttl_ms, v_now + default_ttl_ms + 2 * v_bucket);
    END IF;
    RETURN v_id;
END $$;

-- Changes what is not null; 0 clears default_ttl_ms, max_entries or max_bytes. The maximum TTL
-- (and with it the bucket width) is fixed at creation.
CREATE OR REPLACE FUNCTION shardq.alter_cache(
    name text, default_ttl_ms bigint DEFAULT NULL, max_entries bigint DEFAULT NULL, max_bytes bigint DEFAULT NULL,
    max_key_bytes integer DEFAULT NULL, max_value_bytes integer DEFAULT NULL)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_id integer := shardq.cache_id(name);
    v_max_ttl bigint := (SELECT c.max_ttl_ms FROM shardq.kv_cache c WHERE c.id = v_id);
BEGIN
    PERFORM shardq.require_owner('alter', name);
    IF default_ttl_ms > v_max_ttl THEN
        RAISE EXCEPTION 'cache "%": default_ttl_ms % is above its max_ttl_ms % (fixed at creation)', name, default_ttl_ms, v_max_ttl
            USING ERRCODE = '22023';
    END IF;
    IF default_ttl_ms < 0 OR max_entries < 0 OR max_bytes < 0 OR max_key_bytes NOT BETWEEN 1 AND 65536
       OR max_value_bytes NOT BETWEEN 1 AND 268435456 THEN
        RAISE EXCEPTION 'cache "%": a limit is out of range (TTL and bounds >= 0, max_key_bytes 1..65536, max_value_bytes 1..268435456)', name
            USING ERRCODE = '22023';
    END IF;
    UPDATE shardq.kv_cache c
       SET default_ttl_ms = CASE WHEN alter_cache.default_ttl_ms IS NULL THEN c.default_ttl_ms
                                 ELSE nullif(alter_cache.default_ttl_ms, 0) END,
           max_entries = CASE WHEN alter_cache.max_entries IS NULL THEN c.max_entries
                              ELSE nullif(alter_cache.max_entries, 0) END,
           max_bytes = CASE WHEN alter_cache.max_bytes IS NULL THEN c.max_bytes ELSE nullif(alter_cache.max_bytes, 0) END,
           max_key_bytes = coalesce(alter_cache.max_key_bytes, c.max_key_bytes),
           max_value_bytes = coalesce(alter_cache.max_value_bytes, c.max_value_bytes)
     WHERE c.id = v_id;
END $$;

-- Drops a cache and all its entries.
CREATE OR REPLACE FUNCTION shardq.drop_cache(name text, if_exists boolean DEFAULT false) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_id integer;
BEGIN
    PERFORM shardq.check_cache_name(name);
    PERFORM shardq.require_owner('drop', name);
    SELECT c.id INTO v_id FROM shardq.kv_cache c WHERE c.name = drop_cache.name;
    IF v_id IS NULL THEN
        IF if_exists THEN
            RETURN;
        END IF;
        RAISE EXCEPTION 'cache "%" does not exist', name
            USING ERRCODE = '42704', SCHEMA = 'shardq', TABLE = 'kv_cache';
    END IF;
    EXECUTE format('DROP TABLE IF EXISTS shardq.%I CASCADE', 'kv_' || v_id);
    DELETE FROM shardq.kv_cache WHERE id = v_id;
END $$;

-- Every cache (or the one named) with its settings, its size and the leader's counters.
-- entries_estimate is PostgreSQL's estimate (pg_class.reltuples, 0 before the first ANALYZE);
-- bytes counts every partition with its indexes; partitions counts the forever one.
CREATE OR REPLACE FUNCTION shardq.caches(p_name text DEFAULT NULL)
RETURNS TABLE (id integer, name text, durable boolean, default_ttl_ms bigint, max_ttl_ms bigint, max_entries bigint,
               max_bytes bigint, bucket_ms bigint, max_key_bytes integer, max_value_bytes integer,
               entries_estimate bigint, bytes bigint, partitions integer, evictions bigint, expirations bigint,
               created_at timestamptz)
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN QUERY
    SELECT c.id, c.name, c.durable, c.default_ttl_ms, c.max_ttl_ms, c.max_entries, c.max_bytes, c.bucket_ms,
           c.max_key_bytes, c.max_value_bytes,
           coalesce((SELECT sum(greatest(r.reltuples, 0))::bigint FROM pg_catalog.pg_partition_tree(t.oid) p
                       JOIN pg_catalog.pg_class r ON r.oid = p.relid WHERE p.isleaf), 0),
           coalesce((SELECT sum(pg_catalog.pg_total_relation_size(p.relid))::bigint
                       FROM pg_catalog.pg_partition_tree(t.oid) p WHERE p.isleaf), 0),
           coalesce((SELECT count(*)::integer FROM pg_catalog.pg_partition_tree(t.oid) p WHERE p.isleaf), 0),
           c.evictions, c.expirations, c.created_at
      FROM shardq.kv_cache c
      LEFT JOIN LATERAL (SELECT pg_catalog.to_regclass(format('shardq.%I', 'kv_' || c.id))::oid AS oid) t ON true
     WHERE p_name IS NULL OR c.name = p_name
     ORDER BY c.name;
END $$;

-- One cache's exact figures (a scan of its entries): live entries and their bytes, and entries
-- expired whose storage the leader has not reclaimed yet; plus the leader's counters.
CREATE OR REPLACE FUNCTION shardq.cache_stats(name text)
RETURNS TABLE (entries bigint, bytes bigint, expired_unreclaimed bigint, partitions integer, evictions bigint,
               expirations bigint)
LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_id integer := shardq.cache_id(name);
BEGIN
    RETURN QUERY EXECUTE format(
        'SELECT count(e.k) FILTER (WHERE e.expires_at IS NULL OR e.expires_at > now()),'
        ' coalesce(sum(e.size) FILTER (WHERE e.expires_at IS NULL OR e.expires_at > now()), 0)::bigint,'
        ' count(e.k) FILTER (WHERE e.expires_at <= now()),'
        ' (SELECT count(*)::integer FROM pg_catalog.pg_partition_tree(%L::regclass) p WHERE p.isleaf),'
        ' c.evictions, c.expirations'
        ' FROM shardq.kv_cache c LEFT JOIN shardq.%I e ON true WHERE c.id = $1 GROUP BY c.evictions, c.expirations',
        format('shardq.%I', 'kv_' || v_id), 'kv_' || v_id) USING v_id;
END $$;

-- Empties cache p_cache: TRUNCATE of every partition (transactional: a rollback keeps the entries).
CREATE OR REPLACE FUNCTION shardq.kv_clear(p_cache integer) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('TRUNCATE shardq.%I', 'kv_' || p_cache);
END $$;

-- The maintenance leader's reclamation of one expired bucket: counts its rows (a plain read, which
-- waits for nobody), drops the partition (the caller sets lock_timeout: a busy table is left for
-- the next round) and adds the count to the cache's expirations. Returns the count.
CREATE OR REPLACE FUNCTION shardq.kv_drop_bucket(p_cache integer, p_bucket bigint) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    v_table text := shardq.kv_bucket_table(p_cache, p_bucket);
    v_rows bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('shardq.kv_partitions'), p_cache);
    IF p_bucket = 0 OR pg_catalog.to_regclass(format('shardq.%I', v_table)) IS NULL THEN
        RETURN 0;
    END IF;
    EXECUTE format('SELECT count(*) FROM shardq.%I', v_table) INTO v_rows;
    EXECUTE format('DROP TABLE shardq.%I', v_table);
    UPDATE shardq.kv_cache SET expirations = expirations + v_rows WHERE id = p_cache;
    RETURN v_rows;
END $$;

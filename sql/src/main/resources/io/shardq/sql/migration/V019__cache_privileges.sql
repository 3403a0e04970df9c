-- V019: the key/value cache from SQL (issue 28) has PostgreSQL's privileges, as destinations do
-- (V004): reading a cache is SELECT on its table shardq."kv_<id>", writing it is INSERT there
-- (shardq.grant_cache). Writes go through shardq.cache_put / cache_remove, which keep the
-- per-key locks, the expiry buckets and the near caches' invalidations; a role holding INSERT must
-- not write the table directly, so every cache's table refuses an INSERT statement from a role
-- that is not a member of the shardq schema's owner (the engine's own role, and the SECURITY
-- DEFINER functions, are). The WHEN condition keeps the engine's own writes free of any trigger
-- call. UPDATE, DELETE and TRUNCATE are never granted on a cache's table.
-- Forward only: never edit this file once landed.

-- Whether the current role may write ShardQ's tables directly: a member of the schema's owner.
CREATE FUNCTION shardq.is_schema_admin() RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT pg_catalog.pg_has_role(current_user,
                                  (SELECT n.nspowner FROM pg_catalog.pg_namespace n WHERE n.nspname = 'shardq'), 'USAGE')
$$;

CREATE FUNCTION shardq.refuse_raw_kv_write() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% on shardq.% is refused: a cache is written with shardq.cache_put and shardq.cache_remove (or the JVM''s KvCache), not by writing its table',
        TG_OP, TG_TABLE_NAME
        USING ERRCODE = '42501',
              HINT = 'a role with the cache''s read privilege reads it with shardq.cache_get or SELECT';
END $$;

DO $$
DECLARE
    c record;
BEGIN
    FOR c IN SELECT id FROM shardq.kv_cache LOOP
        EXECUTE format('CREATE TRIGGER refuse_raw_write BEFORE INSERT ON shardq.%I FOR EACH STATEMENT'
                       ' WHEN (NOT shardq.is_schema_admin()) EXECUTE FUNCTION shardq.refuse_raw_kv_write()',
                       'kv_' || c.id);
    END LOOP;
END $$;

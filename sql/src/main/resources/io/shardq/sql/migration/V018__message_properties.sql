-- V018: a message's properties where PostgreSQL can read them (issue 28).
-- Why: selectors evaluated in PostgreSQL (shardq.selector_sql) and the SQL API read a message's
-- properties, and the binary header (HeaderCodec) is the JVM's record, not readable in SQL. Every
-- destination's message table gets a nullable jsonb column: the properties, JMSCorrelationID and
-- JMSType (PropertiesJson); NULL for a message with none of them, so the common message pays
-- nothing (docs/benchmarks/2026-11-28-jsonb-properties-cost.md). Adding a nullable column without
-- a default rewrites nothing; the partitions (shards, slots) take it from their parent, and
-- shardq.add_slot creates new slots LIKE their shard. shardq.create_queue adds it to new
-- destinations. Messages stored before this migration keep NULL, which a selector evaluated in
-- PostgreSQL would read as "no properties": shard.properties_from records, per shard, the first
-- sequence number written with the column, so a reader that filters in SQL leaves the older rows
-- to the JVM's evaluation (docs/design/sql-api.md). Instances of an older version must be stopped
-- before it runs (they would write rows without the column).
-- Forward only: never edit this file once landed; add V019__... instead.
DO $$
DECLARE
    v_id integer;
BEGIN
    FOR v_id IN SELECT id FROM shardq.destination ORDER BY id LOOP
        EXECUTE format('ALTER TABLE shardq.%I ADD COLUMN IF NOT EXISTS properties jsonb', 'm_' || v_id);
    END LOOP;
END $$;

ALTER TABLE shardq.shard ADD COLUMN properties_from bigint NOT NULL DEFAULT 1;
UPDATE shardq.shard SET properties_from = next_seq;
COMMENT ON COLUMN shardq.shard.properties_from IS
    'First sequence number whose row carries its properties column (V018); older rows have NULL there';

-- A message sent from SQL with a delivery delay waits here with its properties (header version 3
-- keeps them only in the column); the JVM's delayed sends keep theirs in the header and leave it
-- NULL.
ALTER TABLE shardq.scheduled_message ADD COLUMN properties jsonb;

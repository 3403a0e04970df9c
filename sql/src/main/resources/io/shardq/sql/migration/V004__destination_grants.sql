-- V004: per-destination grants are PostgreSQL privileges on the destination's message table.
-- Why: issue 9 asks that PostgreSQL itself keep a role without the grant from reading a queue.
-- A destination's privileges are table privileges on its partitioned table shardq.m_<id>
-- (browse = SELECT, send = INSERT, receive = SELECT and DELETE, administer = TRUNCATE; granted by
-- shardq.grant). A role with SELECT reads the messages through that table natively. The other
-- privileges would also let a psql session write the table directly, which would break the
-- queue (rows outside the reserved sequence, rows gone behind a cursor): so every destination's
-- table refuses INSERT, UPDATE, DELETE and TRUNCATE statements aimed at it, by a statement
-- trigger. ShardQ itself writes and truncates the leaf tables (shardq.m_<id>_<shard>_<slot>), on
-- which nobody else holds any privilege; statement triggers fire only for the table a statement
-- names, so the engine's hot path never runs it. shardq.create_queue adds the trigger to new
-- destinations; this migration adds it to the existing ones.
-- Forward only: never edit this file once landed; add V005__... instead.
CREATE OR REPLACE FUNCTION shardq.refuse_raw_write() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% on shardq.% is refused: messages are sent, received and purged through ShardQ (JMS, shardq.purge_queue), not by writing the table',
        TG_OP, TG_TABLE_NAME
        USING ERRCODE = '42501',
              HINT = 'a role reads the messages it may browse with SELECT; shardq.grants(queue) lists who may do what';
END $$;

DO $$
DECLARE
    v_id integer;
BEGIN
    FOR v_id IN SELECT id FROM shardq.destination ORDER BY id LOOP
        EXECUTE format('CREATE TRIGGER refuse_raw_write BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON shardq.%I'
                       ' FOR EACH STATEMENT EXECUTE FUNCTION shardq.refuse_raw_write()', 'm_' || v_id);
    END LOOP;
END $$;

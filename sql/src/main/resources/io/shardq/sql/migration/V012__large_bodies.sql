-- V012: streamed large message bodies (issue 12). A body sent through the JMS_ShardQ_InputStream
-- property is written in chunks in the sending transaction, before the shard's row lock is taken
-- (the visibility rule holds that lock from the reservation to COMMIT; a gigabyte is not written
-- under it). The message row carries only the body's id and size (header version 2).
-- large_body ties a body to its message (destination, shard, seq): it is inserted after the
-- reservation, in the same transaction. The chunks' foreign key to it is checked at COMMIT
-- (DEFERRABLE INITIALLY DEFERRED), so chunks without a message cannot commit: a rollback or a
-- dead JVM leaves nothing, and no orphan sweep is needed. Deleting a large_body row deletes its
-- chunks (ON DELETE CASCADE): slice retirement and purge delete the rows of the messages they
-- remove; dropping the destination deletes them through its own cascade. Each body belongs to one
-- message: a dead letter or an expired message moved aside gets a copy of the chunks.
-- Chunk rows are deleted, not truncated: VACUUM (autovacuum) makes their space reusable.
-- data is EXTERNAL: stored out of line without a compression attempt (large payloads are mostly
-- compressed already, and pglz would spend CPU on each chunk for nothing).
-- Forward only: never edit this file once landed.
CREATE SEQUENCE shardq.large_body_id;

CREATE TABLE shardq.large_body (
    id             bigint  PRIMARY KEY,
    destination_id integer NOT NULL REFERENCES shardq.destination (id) ON DELETE CASCADE,
    shard_no       integer NOT NULL,
    seq            bigint  NOT NULL,
    size           bigint  NOT NULL CHECK (size >= 0)
);
CREATE INDEX large_body_message ON shardq.large_body (destination_id, shard_no, seq);

CREATE TABLE shardq.large_body_chunk (
    body_id  bigint  NOT NULL
             REFERENCES shardq.large_body (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    chunk_no integer NOT NULL CHECK (chunk_no >= 0),
    data     bytea   NOT NULL,
    PRIMARY KEY (body_id, chunk_no)
);
ALTER TABLE shardq.large_body_chunk ALTER COLUMN data SET STORAGE EXTERNAL;

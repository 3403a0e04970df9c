-- V001: the ShardQ catalog.
-- Why: every later piece (queues, topics, leases, slice retirement, instances) reads and
-- writes these rows. Message rows themselves live in per-destination partitioned tables
-- (shardq.m_<destination id>_...) created by shardq.create_queue(), never here.
-- Forward only: never edit this file once landed; add V002__... instead.

CREATE TABLE shardq.instance (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name          text        NOT NULL,
    started_at    timestamptz NOT NULL DEFAULT now(),
    heartbeat_at  timestamptz NOT NULL DEFAULT now(),
    stopped_at    timestamptz,
    -- destinations whose consumers here are waiting while other instances hold the leases:
    -- lease holders over their fair share give shards back when they see this
    hungry_for    integer[]   NOT NULL DEFAULT '{}'
);
COMMENT ON TABLE shardq.instance IS
    'One row per JVM connection factory (the analogue of an Oracle RAC instance); alive while heartbeat_at is recent';

CREATE TABLE shardq.destination (
    id               integer     GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name             text        NOT NULL UNIQUE
                                 CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'),
    kind             text        NOT NULL CHECK (kind IN ('queue', 'topic')),
    shard_count      integer     NOT NULL CHECK (shard_count BETWEEN 1 AND 256),
    slice_size       integer     NOT NULL CHECK (slice_size BETWEEN 16 AND 100000000),
    max_attempts     integer     NOT NULL DEFAULT 5 CHECK (max_attempts >= 1),
    dead_letter_name text,
    enqueue_enabled  boolean     NOT NULL DEFAULT true,
    dequeue_enabled  boolean     NOT NULL DEFAULT true,
    created_at       timestamptz NOT NULL DEFAULT now()
);

-- next_seq is the gapless per-shard sequence: an enqueue transaction reserves its range
-- with UPDATE ... RETURNING and holds the row lock until it commits (see architecture.md,
-- "visibility rule"). waiter = an instance whose consumers wait on this shard and want a
-- NOTIFY; the next enqueue clears it and notifies. fillfactor leaves room for HOT updates.
CREATE TABLE shardq.shard (
    destination_id  integer NOT NULL REFERENCES shardq.destination (id) ON DELETE CASCADE,
    shard_no        integer NOT NULL,
    next_seq        bigint  NOT NULL DEFAULT 1,
    owner_instance  bigint,
    waiter          bigint,
    -- set to the old waiter by the UPDATE that clears it, so RETURNING can report it
    notified        bigint,
    PRIMARY KEY (destination_id, shard_no)
) WITH (fillfactor = 50);

-- A slot is one leaf partition of a shard (table shardq.m_<destination>_<shard>_<slot>). It
-- holds one slice, the sequence numbers first_seq..last_seq, or nothing (first_seq IS NULL:
-- truncated and ready for reuse). Slices of a shard are contiguous and never overlap.
CREATE TABLE shardq.slice (
    destination_id  integer NOT NULL,
    shard_no        integer NOT NULL,
    slot            integer NOT NULL,
    first_seq       bigint,
    last_seq        bigint,
    assigned_at     timestamptz,
    PRIMARY KEY (destination_id, shard_no, slot),
    UNIQUE (destination_id, shard_no, first_seq),
    CHECK ((first_seq IS NULL) = (last_seq IS NULL) AND (first_seq IS NULL OR last_seq >= first_seq)),
    FOREIGN KEY (destination_id, shard_no) REFERENCES shardq.shard ON DELETE CASCADE
) WITH (fillfactor = 70);

-- A queue has exactly one subscription (name ''); a topic one per durable or shared
-- subscription. bit is the position in the subscriber bitmap carried by topic messages.
CREATE TABLE shardq.subscription (
    id              bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    destination_id  integer NOT NULL REFERENCES shardq.destination (id) ON DELETE CASCADE,
    name            text    NOT NULL,
    bit             integer NOT NULL,
    selector        text,
    durable         boolean NOT NULL DEFAULT true,
    created_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (destination_id, name),
    UNIQUE (destination_id, bit)
);

-- position = highest sequence number consumed (committed) by the subscription on this
-- shard. Moved forward by the consumer's own transaction; leased by one instance at a time.
CREATE TABLE shardq.cursor (
    subscription_id bigint      NOT NULL REFERENCES shardq.subscription (id) ON DELETE CASCADE,
    destination_id  integer     NOT NULL,
    shard_no        integer     NOT NULL,
    position        bigint      NOT NULL DEFAULT 0,
    lease_instance  bigint,
    lease_until     timestamptz,
    PRIMARY KEY (subscription_id, shard_no),
    FOREIGN KEY (destination_id, shard_no) REFERENCES shardq.shard ON DELETE CASCADE
) WITH (fillfactor = 50);

-- Failed deliveries (rollback, recover, listener exception). Written only on the failure
-- path, never for a message delivered first time.
CREATE TABLE shardq.delivery_attempt (
    subscription_id bigint  NOT NULL REFERENCES shardq.subscription (id) ON DELETE CASCADE,
    shard_no        integer NOT NULL,
    seq             bigint  NOT NULL,
    attempts        integer NOT NULL,
    PRIMARY KEY (subscription_id, shard_no, seq)
);

-- Messages consumed beyond the cursor, out of order: a consumer with a message selector takes
-- matching messages and leaves the others for other consumers. The cursor then advances over
-- the contiguous prefix of consumed messages (these rows included) and the rows at or below it
-- are deleted. Only selective consumption writes here; the plain dequeue path never does.
CREATE TABLE shardq.dequeue_log (
    subscription_id bigint  NOT NULL REFERENCES shardq.subscription (id) ON DELETE CASCADE,
    shard_no        integer NOT NULL,
    seq             bigint  NOT NULL,
    PRIMARY KEY (subscription_id, shard_no, seq)
);

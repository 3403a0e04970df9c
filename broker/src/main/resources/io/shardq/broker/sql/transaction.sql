-- Transactions: lock timeouts, prepared (XA) transactions.
--
-- Named statements, one block per statement: "-- name: <table>_<verb>_<qualifier>", comment lines,
-- the statement. Every value is a bind parameter; a /* TEMPLATE: ... */ slot takes only an
-- identifier built from numeric catalog ids (Queries), always quoted. The build generates the
-- enum io.shardq.broker.internal.Query from these names (src/build/QueryNames.java), so a misspelt
-- name fails compilation; QueriesTest PREPAREs every statement against the migrated schema.

-- name: transaction_set_lock_timeout
SELECT set_config('lock_timeout', ?, true)

-- name: prepared_xact_select
-- XA recovery (issue 13): this database's prepared transactions whose gid starts with ? (ShardQ's
-- prefix), oldest first. pg_prepared_xacts shows those of every database of the server.
SELECT gid FROM pg_prepared_xacts WHERE database = current_database() AND starts_with(gid, ?) ORDER BY prepared

-- name: prepared_xact_max
-- 0: the server refuses PREPARE TRANSACTION (two-phase commit is off).
SELECT current_setting('max_prepared_transactions')::integer

-- name: session_set_lock_timeout
-- lock_timeout for the session (VACUUM runs outside a transaction block); reset with session_reset_lock_timeout.
SELECT set_config('lock_timeout', ?, false)

-- name: session_reset_lock_timeout
RESET lock_timeout

-- name: prepared_xact_prepare
-- Ends the transaction with PREPARE TRANSACTION; the gid slot takes a validated global transaction
-- id (PreparedTransactions.validate: [A-Za-z0-9+/=:._-], quoted here as a literal).
PREPARE TRANSACTION /* TEMPLATE: gid */

-- name: prepared_xact_commit
COMMIT PREPARED /* TEMPLATE: gid */

-- name: prepared_xact_rollback
ROLLBACK PREPARED /* TEMPLATE: gid */

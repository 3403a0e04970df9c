/**
 * The key/value cache (issue 11): named caches stored in PostgreSQL, shared by every instance,
 * with per-entry TTL, batched writes and the option to join a session's or a JDBC connection's
 * transaction. API: {@link io.shardq.broker.kv.KvCache} (from {@link
 * io.shardq.broker.Broker#cache}) and {@link io.shardq.broker.kv.Codec}; the rest of the package
 * is internal. Administration is {@link io.shardq.broker.CacheAdmin#create} and the {@code
 * shardq.*_cache} SQL functions. The design, and why: {@code
 * docs/design/kv-cache.md}.
 */
package io.shardq.broker.kv;

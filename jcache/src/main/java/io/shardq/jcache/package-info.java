/**
 * JCache (JSR-107) over ShardQ's key/value cache: {@link io.shardq.jcache.ShardQCachingProvider}
 * is the API; the cache manager and caches are reached through {@code javax.cache}. See
 * docs/design/jcache.md for the design.
 */
package io.shardq.jcache;

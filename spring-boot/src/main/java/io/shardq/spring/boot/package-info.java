/**
 * Spring Boot starter for ShardQ: {@link io.shardq.spring.boot.ShardQAutoConfiguration} and the
 * {@link io.shardq.spring.boot.TransactionAwareShardQConnectionFactory} whose sessions join the
 * application's DataSource transactions.
 */
package io.shardq.spring.boot;

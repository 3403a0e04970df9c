package io.shardq.spring.boot;

import io.shardq.jms.ShardQConnectionFactory;

/**
 * Adjusts the ShardQ connection factory the starter creates, before it starts (e.g. {@code
 * setObjectMessageAllowList}). Declare it as a bean; several run in {@code @Order}.
 */
@FunctionalInterface
public interface ShardQConnectionFactoryCustomizer {
    void customize(ShardQConnectionFactory factory);
}

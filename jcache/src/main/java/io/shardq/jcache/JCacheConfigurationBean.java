package io.shardq.jcache;

import javax.cache.configuration.CompleteConfiguration;
import javax.cache.management.CacheMXBean;

/** JCache's configuration MBean of one cache: what its configuration says, read live. */
final class JCacheConfigurationBean implements CacheMXBean {
    private final ShardQCache<?, ?> cache;

    JCacheConfigurationBean(ShardQCache<?, ?> cache) {
        this.cache = cache;
    }

    private CompleteConfiguration<?, ?> c() {
        return cache.configuration();
    }

    @Override
    public String getKeyType() {
        return c().getKeyType().getName();
    }

    @Override
    public String getValueType() {
        return c().getValueType().getName();
    }

    @Override
    public boolean isReadThrough() {
        return c().isReadThrough();
    }

    @Override
    public boolean isWriteThrough() {
        return c().isWriteThrough();
    }

    @Override
    public boolean isStoreByValue() {
        return c().isStoreByValue();
    }

    @Override
    public boolean isStatisticsEnabled() {
        return c().isStatisticsEnabled();
    }

    @Override
    public boolean isManagementEnabled() {
        return c().isManagementEnabled();
    }
}

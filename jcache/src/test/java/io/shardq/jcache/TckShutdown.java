package io.shardq.jcache;

import javax.cache.Caching;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestPlan;

/**
 * Closes the JCache providers when a test run ends (registered in META-INF/services). It is for
 * the TCK profile ({@code -Plong}, the second test lane): the TCK takes the default cache manager and never closes it, so
 * its broker's pool would still hold connections when the JVM exits, and the embedded PostgreSQL
 * (which stops only when no client is left) would stay up after the run. Our own tests close
 * their managers themselves.
 */
public final class TckShutdown implements TestExecutionListener {
    @Override
    public void testPlanExecutionFinished(TestPlan testPlan) {
        Caching.getCachingProviders().forEach(javax.cache.spi.CachingProvider::close);
    }
}

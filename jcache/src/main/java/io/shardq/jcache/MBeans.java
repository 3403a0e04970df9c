package io.shardq.jcache;

import java.lang.management.ManagementFactory;
import javax.cache.CacheException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Registers JCache's MBeans on the platform MBean server under the names JSR-107 specifies:
 * {@code javax.cache:type=CacheStatistics|CacheConfiguration,CacheManager=<uri>,Cache=<name>},
 * with {@code , : = "} and newlines in the URI and name replaced by {@code .} (as the reference
 * implementation does).
 */
final class MBeans {
    static final String STATISTICS = "CacheStatistics";
    static final String CONFIGURATION = "CacheConfiguration";

    private MBeans() {}

    static ObjectName name(String type, String managerUri, String cache) {
        try {
            return new ObjectName(
                    "javax.cache:type=" + type + ",CacheManager=" + clean(managerUri) + ",Cache=" + clean(cache));
        } catch (javax.management.MalformedObjectNameException e) {
            throw new CacheException("cannot name the MBean of cache \"" + cache + "\": " + e.getMessage(), e);
        }
    }

    private static String clean(String s) {
        return s.replaceAll("[,:=\"\\n\\r*?]", ".");
    }

    static void register(Object bean, ObjectName name) {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        try {
            if (server.isRegistered(name)) {
                server.unregisterMBean(name);
            }
            server.registerMBean(bean, name);
        } catch (javax.management.JMException e) {
            throw new CacheException("cannot register MBean " + name + ": " + e.getMessage(), e);
        }
    }

    static void unregister(ObjectName name) {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        try {
            if (server.isRegistered(name)) {
                server.unregisterMBean(name);
            }
        } catch (javax.management.JMException e) {
            throw new CacheException("cannot unregister MBean " + name + ": " + e.getMessage(), e);
        }
    }
}

package io.shardq.jms.xa;

import com.arjuna.ats.arjuna.common.ObjectStoreEnvironmentBean;
import com.arjuna.ats.arjuna.common.arjPropertyManager;
import com.arjuna.ats.arjuna.common.recoveryPropertyManager;
import com.arjuna.ats.jta.common.jtaPropertyManager;
import com.arjuna.common.internal.util.propertyservice.BeanPopulator;
import java.nio.file.Path;
import java.util.List;

/**
 * Narayana configured for the XA tests, the same in the test JVM and in the child JVM that
 * crashes: one object store under {@code target/}, one node name, so the test JVM's recovery
 * finds the child's transaction log and treats the child's branches as its own.
 */
final class Narayana {
    static final String NODE = "shardq-xa-test";

    private Narayana() {}

    /** The object store of this module's XA tests (relative to the module, where surefire runs). */
    static Path objectStore() {
        return Path.of("target", "xa-object-store").toAbsolutePath();
    }

    /** Before the first transaction of the JVM. */
    static void configure(Path store) {
        String dir = store.toString();
        BeanPopulator.getDefaultInstance(ObjectStoreEnvironmentBean.class).setObjectStoreDir(dir);
        BeanPopulator.getNamedInstance(ObjectStoreEnvironmentBean.class, "communicationStore")
                .setObjectStoreDir(dir);
        BeanPopulator.getNamedInstance(ObjectStoreEnvironmentBean.class, "stateStore")
                .setObjectStoreDir(dir);
        try {
            arjPropertyManager.getCoreEnvironmentBean().setNodeIdentifier(NODE);
        } catch (com.arjuna.ats.arjuna.common.CoreEnvironmentBeanException e) {
            throw new IllegalStateException(e);
        }
        jtaPropertyManager.getJTAEnvironmentBean().setXaRecoveryNodes(List.of(NODE));
        // a scan's two passes 1 s apart, not 10 s
        recoveryPropertyManager.getRecoveryEnvironmentBean().setRecoveryBackoffPeriod(1);
        jtaPropertyManager.getJTAEnvironmentBean().setOrphanSafetyInterval(0);
    }
}

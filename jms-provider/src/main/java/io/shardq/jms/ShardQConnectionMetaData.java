package io.shardq.jms;

import jakarta.jms.ConnectionMetaData;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

/** What a ShardQ connection is: JMS 3.1, provider ShardQ, and the JMSX properties it supports. */
final class ShardQConnectionMetaData implements ConnectionMetaData {
    static final String PROVIDER_VERSION = "0.1";

    /**
     * The JMSX properties ShardQ supports: JMSXDeliveryCount (required), JMSXGroupID and
     * JMSXGroupSeq (required; groups keep order per group), JMSXUserID (set on send when the
     * connection was created with a user, a PostgreSQL role). Not JMSXAppID, JMSXProducerTXID,
     * JMSXConsumerTXID, JMSXRcvTimestamp, JMSXState: nothing truthful to put there.
     */
    static final List<String> SUPPORTED_JMSX =
            List.of("JMSXDeliveryCount", "JMSXGroupID", "JMSXGroupSeq", "JMSXUserID");

    @Override
    public String getJMSVersion() {
        return "3.1";
    }

    @Override
    public int getJMSMajorVersion() {
        return 3;
    }

    @Override
    public int getJMSMinorVersion() {
        return 1;
    }

    @Override
    public String getJMSProviderName() {
        return "ShardQ";
    }

    @Override
    public String getProviderVersion() {
        return PROVIDER_VERSION;
    }

    @Override
    public int getProviderMajorVersion() {
        return 0;
    }

    @Override
    public int getProviderMinorVersion() {
        return 1;
    }

    @Override
    public Enumeration<String> getJMSXPropertyNames() {
        return Collections.enumeration(SUPPORTED_JMSX);
    }
}

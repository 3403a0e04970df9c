package io.shardq.broker.testing;

import io.shardq.broker.Broker;
import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.kv.Codec;
import io.shardq.broker.kv.KvWriteBehind;

/**
 * Run in a separate JVM by tests: writes keys {@code k0, k1, ...} (value {@code v<i>}) through a
 * write-behind view of a cache until killed, calling {@code flush()} after every 100 and printing
 * {@code FLUSHED <n>} once keys 0..n-1 are committed. The flusher itself runs rarely (once a
 * minute), so what is committed without a {@code flush()} is whatever a full queue forced. Args:
 * JDBC URL, user, password, cache.
 */
public final class WriteBehindMain {
    private WriteBehindMain() {}

    public static void main(String[] args) {
        BrokerConfig config = BrokerConfig.builder()
                .isolated()
                .set(BrokerProperty.JDBC_URL, args[0])
                .set(BrokerProperty.JDBC_USER, args[1])
                .set(BrokerProperty.JDBC_PASSWORD, args[2])
                .set(BrokerProperty.KV_WRITE_BEHIND_FLUSH_MS, 60_000)
                .build();
        Broker broker = Broker.start(config);
        KvWriteBehind<String, String> wb =
                broker.cache(args[3], Codec.utf8(), Codec.utf8()).writeBehind();
        for (int i = 0; ; i++) {
            wb.put("k" + i, "v" + i);
            if ((i + 1) % 100 == 0) {
                wb.flush();
                System.out.println("FLUSHED " + (i + 1));
                System.out.flush();
            }
        }
    }
}

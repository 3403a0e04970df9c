package io.shardq.broker.kv;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.testing.PgTest;
import io.shardq.broker.testing.TestDatabase;
import io.shardq.sql.Migrations;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The two key hashes a writer in SQL must compute exactly as the JVM does (docs/design/sql-api.md):
 * the advisory-lock hash ({@link ByteKey}) and the near cache's 64-bit hash ({@link
 * NearCache#hash64}), against {@code shardq.kv_lock_hash} and {@code shardq.kv_key_hash64}, over
 * random keys (seeded) and the edges: empty, every byte value, long keys.
 */
@PgTest
class KvHashesTest {

    @Test
    void sqlComputesBothKeyHashesAsTheJvmDoes(TestDatabase db) throws Exception {
        List<byte[]> keys = new ArrayList<>();
        keys.add(new byte[0]);
        byte[] every = new byte[256];
        for (int i = 0; i < 256; i++) {
            every[i] = (byte) i;
        }
        keys.add(every);
        keys.add(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff});
        keys.add(new byte[1000]);
        Random random = new Random(20261128);
        for (int i = 0; i < 2000; i++) {
            byte[] k = new byte[random.nextInt(41)];
            random.nextBytes(k);
            keys.add(k);
        }
        Migrations.migrate(db.dataSource());
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement("SELECT shardq.kv_lock_hash(k), shardq.kv_key_hash64(k)"
                        + " FROM unnest(?::bytea[]) WITH ORDINALITY AS u (k, n) ORDER BY n")) {
            Array array = c.createArrayOf("bytea", keys.toArray(new byte[0][]));
            ps.setArray(1, array);
            try (ResultSet rs = ps.executeQuery()) {
                for (byte[] k : keys) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getInt(1))
                            .as("lock hash of %s bytes", k.length)
                            .isEqualTo(ByteKey.of(k).hash());
                    assertThat(rs.getLong(2)).as("hash64 of %s bytes", k.length).isEqualTo(NearCache.hash64(k));
                }
                assertThat(rs.next()).isFalse();
            }
        }
    }
}

package io.shardq.broker.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.testing.MigrateMain;
import io.shardq.sql.Migrations;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedded default: what a user gets with no JDBC URL configured. */
class EmbeddedServerTest {

    @TempDir
    Path home;

    @Test
    void embeddedDefault_isDurable_keepsDataAcrossRestarts_andMigratesOnce() throws Exception {
        Path dataDir = home.resolve("pgdata");
        BrokerConfig config = BrokerConfig.builder()
                .isolated()
                .set(BrokerProperty.EMBEDDED_DATA_DIR, dataDir.toString())
                .build();

        try (Database db = Database.open(config, "embedded-test")) {
            assertThat(db.isEmbedded()).isTrue();
            assertThat(Migrations.migrate(db.dataSource()).applied()).isPositive();
            try (Connection c = db.dataSource().getConnection();
                    Statement s = c.createStatement()) {
                ResultSet rs = s.executeQuery("select current_setting('fsync'), current_setting('synchronous_commit')");
                rs.next();
                assertThat(rs.getString(1)).isEqualTo("on");
                assertThat(rs.getString(2)).isEqualTo("on");
                s.execute("create table public.survivor(x int)");
            }
        }
        assertThat(dataDir.resolve("postmaster.pid")).doesNotExist();

        try (Database db = Database.open(config, "embedded-test")) {
            assertThat(Migrations.migrate(db.dataSource()).applied()).isZero();
            try (Connection c = db.dataSource().getConnection();
                    Statement s = c.createStatement()) {
                ResultSet rs = s.executeQuery("select to_regclass('public.survivor') is not null");
                rs.next();
                assertThat(rs.getBoolean(1)).as("data kept across restarts").isTrue();
            }
        }
    }

    @Test
    void embeddedDefault_twoJvmsStartingAtOnce_bothMigrate() throws Exception {
        Path dataDir = home.resolve("shared-pgdata");
        Process a = MigrateMain.spawn("--data-dir", dataDir.toString());
        Process b = MigrateMain.spawn("--data-dir", dataDir.toString());
        String outA = new String(a.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String outB = new String(b.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(a.waitFor(180, TimeUnit.SECONDS)).isTrue();
        assertThat(b.waitFor(180, TimeUnit.SECONDS)).isTrue();

        assertThat(a.exitValue()).as(outA).isZero();
        assertThat(b.exitValue()).as(outB).isZero();
        assertThat(outA + outB).contains("applied=0").contains("version=");
        assertThat(Files.exists(dataDir.resolve("PG_VERSION"))).isTrue();
        assertThat(dataDir.resolve("postmaster.pid"))
                .as("last one out stops the server")
                .doesNotExist();
    }

    /**
     * An unpacking of zonky's binaries cut short (the CLI's keeper once ran out of memory there on a
     * fresh machine) left a directory without zonky's '.exists' mark, on which every later start
     * failed. It is emptied; a finished one, and one whose lock another process holds, are kept.
     */
    @Test
    void unfinishedUnpacking_isRemoved_finishedAndLockedOnesAreKept() throws Exception {
        Path root = home.resolve("embedded-pg");
        Path cut = Files.createDirectories(root.resolve("PG-cut").resolve("lib"));
        Files.writeString(cut.resolve("libicudata.so"), "x");
        Path done = Files.createDirectories(root.resolve("PG-done").resolve("lib"));
        Files.writeString(done.getParent().resolve(".exists"), "");
        Path busy = Files.createDirectories(root.resolve("PG-busy").resolve("lib"));

        Process holder = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        LockHolder.class.getName(),
                        busy.getParent().resolve("epg-lock").toString())
                .redirectErrorStream(true)
                .start();
        try {
            assertThat(new String(holder.getInputStream().readNBytes(6), StandardCharsets.US_ASCII))
                    .isEqualTo("locked");
            assertThat(EmbeddedServer.removeUnfinishedUnpacking(root)).isTrue();
            assertThat(cut).doesNotExist();
            assertThat(cut.getParent()).exists();
            assertThat(done).exists();
            assertThat(busy).exists();
            assertThat(EmbeddedServer.removeUnfinishedUnpacking(root)).isFalse();
        } finally {
            holder.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** Holds a file lock, as zonky does while it unpacks, until killed. */
    public static final class LockHolder {
        public static void main(String[] args) throws Exception {
            try (var ch = java.nio.channels.FileChannel.open(
                            Path.of(args[0]),
                            java.nio.file.StandardOpenOption.CREATE,
                            java.nio.file.StandardOpenOption.WRITE);
                    var lock = ch.lock()) {
                System.out.print("locked");
                System.out.flush();
                Thread.sleep(Long.MAX_VALUE);
            }
        }
    }
}

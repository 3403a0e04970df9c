package io.shardq.broker.testing;

import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.store.Database;
import io.shardq.sql.Migrations;

/** Run in a separate JVM by tests: opens a database as ShardQ would and migrates it. */
public final class MigrateMain {
    private MigrateMain() {}

    public static void main(String[] args) {
        BrokerConfig.Builder b = BrokerConfig.builder().isolated();
        if (args[0].equals("--url")) {
            b.set(BrokerProperty.JDBC_URL, args[1]);
        } else {
            b.set(BrokerProperty.EMBEDDED_DATA_DIR, args[1]);
        }
        try (Database db = Database.open(b.build(), "migrate-main")) {
            Migrations.Result r = Migrations.migrate(db.dataSource());
            System.out.println("applied=" + r.applied() + " version=" + r.schemaVersion());
        }
    }

    /** Starts this main in a new JVM with the current class path. */
    public static Process spawn(String... args) throws java.io.IOException {
        java.util.List<String> cmd = new java.util.ArrayList<>(java.util.List.of(
                java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java")
                        .toString(),
                "-cp",
                System.getProperty("java.class.path"),
                MigrateMain.class.getName()));
        cmd.addAll(java.util.List.of(args));
        return new ProcessBuilder(cmd).redirectErrorStream(true).start();
    }
}

package io.shardq.cli;

import io.shardq.broker.BrokerConfig;
import io.shardq.broker.BrokerProperty;
import io.shardq.broker.ErrorKind;
import io.shardq.broker.ShardQException;
import io.shardq.broker.store.Database;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * Where the CLI connects: options first, then {@code SHARDQ_JDBC_URL}/{@code SHARDQ_PASSWORD},
 * then the embedded default. A password is read from a file or the environment, never from the
 * command line, so it cannot show in process listings.
 */
public final class ConnectionOptions {
    @Option(
            names = "--jdbc-url",
            paramLabel = "URL",
            description = "PostgreSQL JDBC URL (default: $SHARDQ_JDBC_URL, else the embedded PostgreSQL)")
    String jdbcUrl;

    @Option(names = "--user", paramLabel = "NAME", description = "database user (default: $SHARDQ_USER or postgres)")
    String user;

    @Option(
            names = "--password-file",
            paramLabel = "FILE",
            description = "file holding the database password (default: $SHARDQ_PASSWORD)")
    Path passwordFile;

    BrokerConfig config() {
        BrokerConfig.Builder b = BrokerConfig.builder();
        if (jdbcUrl != null) {
            b.set(BrokerProperty.JDBC_URL, jdbcUrl);
        }
        if (user != null) {
            b.set(BrokerProperty.JDBC_USER, user);
        }
        if (passwordFile != null) {
            try {
                b.set(
                        BrokerProperty.JDBC_PASSWORD,
                        Files.readString(passwordFile, StandardCharsets.UTF_8).strip());
            } catch (IOException e) {
                throw new ShardQException(
                        ErrorKind.CONFIGURATION, "cannot read password file " + passwordFile + ": " + e);
            }
        }
        return b.build();
    }

    Database open() {
        return Database.open(config(), "shardq-cli");
    }
}

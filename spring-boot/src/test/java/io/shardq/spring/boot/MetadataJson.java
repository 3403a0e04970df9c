package io.shardq.spring.boot;

import io.shardq.broker.BrokerProperty;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes {@code additional-spring-configuration-metadata.json} from {@link BrokerProperty}: one
 * entry per setting, with its type, default and description, which Spring Boot's configuration
 * processor merges into the jar's {@code spring-configuration-metadata.json} (what IDEs read).
 * {@link ConfigurationMetadataTest} fails when the file no longer matches the enum; regenerate it
 * with {@code java -cp broker/target/classes spring-boot/src/test/java/io/shardq/spring/boot/MetadataJson.java}.
 */
public final class MetadataJson {
    static final Path FILE = Path.of("src/main/resources/META-INF/additional-spring-configuration-metadata.json");

    private MetadataJson() {}

    public static void main(String[] args) throws Exception {
        Path file = args.length > 0 ? Path.of(args[0]) : Path.of("spring-boot").resolve(FILE);
        Files.writeString(file, generate());
    }

    /** The Java type an IDE shows for a setting. */
    static String type(BrokerProperty p) {
        String d = p.defaultValue();
        if (p.key().endsWith(".multiplier")) {
            return "java.lang.Double";
        }
        if (d.equals("true") || d.equals("false")) {
            return "java.lang.Boolean";
        }
        if (d.matches("-?[0-9]+")) {
            return "java.lang.Integer";
        }
        return "java.lang.String";
    }

    static String generate() {
        StringBuilder out = new StringBuilder("{\n  \"groups\": [\n    {\n      \"name\": \"shardq\",\n");
        out.append("      \"description\": \"ShardQ settings (io.shardq.broker.BrokerProperty); environment variables")
                .append(" and system properties of the same names work too. With the starter, unset shardq.jdbc.*")
                .append(" settings are the application's DataSource's, and the embedded PostgreSQL starts only")
                .append(" when there is no DataSource.\"\n    }\n  ],\n  \"properties\": [\n");
        BrokerProperty[] all = BrokerProperty.values();
        for (int i = 0; i < all.length; i++) {
            BrokerProperty p = all[i];
            String type = type(p);
            out.append("    {\n      \"name\": ").append(quote(p.key())).append(",\n");
            out.append("      \"type\": ").append(quote(type)).append(",\n");
            out.append("      \"description\": ")
                    .append(quote(p.description() + " (environment variable " + p.envName() + ")"));
            if (!p.defaultValue().isEmpty()) {
                out.append(",\n      \"defaultValue\": ");
                out.append(type.equals("java.lang.String") ? quote(p.defaultValue()) : p.defaultValue());
            }
            out.append("\n    }").append(i + 1 < all.length ? ",\n" : "\n");
        }
        return out.append("  ]\n}\n").toString();
    }

    private static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                default -> b.append(c);
            }
        }
        return b.append('"').toString();
    }
}

package io.shardq.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(name = "version", description = "Print the ShardQ and Java versions.")
final class VersionCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        for (String line : new Provider().getVersion()) {
            spec.commandLine().getOut().println(line);
        }
        return 0;
    }

    /** The Maven project version the jar was built from (version.properties, filtered by the build). */
    static String projectVersion() {
        try (java.io.InputStream in = VersionCommand.class.getResourceAsStream("version.properties")) {
            java.util.Properties p = new java.util.Properties();
            if (in != null) {
                p.load(in);
            }
            String v = p.getProperty("version", "");
            return v.isBlank() || v.startsWith("${")
                    ? "(version unknown: built without Maven's resource filtering)"
                    : v;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static final class Provider implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {
                "shardq " + projectVersion(),
                "java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"
            };
        }
    }
}

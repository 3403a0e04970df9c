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

    static final class Provider implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = ShardqCommand.class.getPackage().getImplementationVersion();
            return new String[] {
                "shardq " + (v == null ? "development build" : v),
                "java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"
            };
        }
    }
}

// Main -- the `elastikey` command: one picocli root whose subcommands come from every module.
package io.elastikey.launcher;

import io.elastikey.edge.cli.EdgeCommand;
import io.elastikey.edge.cli.OriginCommand;
import io.elastikey.keyserver.cli.KeyServerCommand;
import io.elastikey.keyserver.cli.KeysCommand;
import io.elastikey.launcher.cli.PkiCommand;
import io.elastikey.launcher.cli.ProgressBar;
import io.elastikey.launcher.demo.StoreDemo;
import io.elastikey.launcher.demo.SuiteDemo;
import io.elastikey.perf.Benchmarks;
import io.elastikey.perf.governor.GovernorTimeline;
import io.elastikey.perf.handshake.HandshakeLoadGenerator;
import io.elastikey.perf.handshake.LocalKeyEdgeCommand;
import io.elastikey.perf.ski.KeyListCommand;
import io.elastikey.perf.ski.SkiLoadGenerator;
import io.elastikey.perf.store.OpenLoopGet;
import io.elastikey.perf.store.ResizeTimeline;
import io.elastikey.resp.cli.StoreCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of {@code ./elastikey}; the script passes every argument here. */
@Command(name = "elastikey",
        mixinStandardHelpOptions = true,
        versionProvider = Version.class,
        description = "Key-server suite for split TLS at the network edge.",
        subcommands = {SuiteDemo.class, StoreDemo.class, KeyServerCommand.class, EdgeCommand.class, OriginCommand.class,
                PkiCommand.class, StoreCommand.class, CommandLine.HelpCommand.class},
        footer = {"", "./elastikey test runs every test (handled by the launcher script, not by this program)."})
public final class Main implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command tree, shared by {@link #main} and tests. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        cl.addSubcommand("keys", new KeysCommand(ProgressBar::new));
        cl.addSubcommand("bench", new Benchmarks());
        cl.addSubcommand("scaleupd", new io.elastikey.scaleup.agent.cli.ScaleUpDaemonCommand());
        cl.addSubcommand("edge-local-keys", new LocalKeyEdgeCommand());
        cl.addSubcommand("loadgen", new CommandLine(new LoadgenCommand())
                .addSubcommand("store", new OpenLoopGet())
                .addSubcommand("resp", new io.elastikey.perf.resp.RespOpenLoopGet())
                .addSubcommand("governor", new GovernorTimeline())
                .addSubcommand("resize", new ResizeTimeline())
                .addSubcommand("ski", new SkiLoadGenerator())
                .addSubcommand("keyless", new CommandLine(new SkiLoadGenerator(SkiLoadGenerator.Protocol.KEYLESS))
                        .setCommandName("keyless")) // its usage line said "loadgen ski", the class's own name
                .addSubcommand("keylist", new KeyListCommand())
                .addSubcommand("handshake", new HandshakeLoadGenerator()));
        return cl.setCaseInsensitiveEnumValuesAllowed(true).setExecutionExceptionHandler(Main::reportFailure);
    }

    /** Load generators: open-loop, coordinated-omission corrected. */
    @Command(name = "loadgen", mixinStandardHelpOptions = true,
            description = "Load generators (open loop, HdrHistogram, coordinated omission corrected).")
    static final class LoadgenCommand implements Runnable {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public void run() {
            spec.commandLine().usage(System.out);
        }
    }

    /**
     * A command that fails says why in one line, as an operator expects ("data directory ... is already
     * open", "config file ... does not exist"), not with a stack trace; {@code -Delastikey.trace=true} shows
     * the trace.
     */
    private static int reportFailure(Exception e, CommandLine command, CommandLine.ParseResult parsed) {
        String message = e.getMessage() != null ? e.getMessage() : e.toString();
        command.getErr().println("elastikey " + command.getCommandName() + ": " + message);
        if (Boolean.getBoolean("elastikey.trace")) {
            e.printStackTrace(command.getErr());
        }
        return 1;
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}

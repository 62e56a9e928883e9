// KeysCommand -- `elastikey keys`: key management on the key server's data directory.
package io.elastikey.keyserver.cli;

import io.elastikey.keyserver.config.KeyServerConfig;
import io.elastikey.keyserver.control.RemoteProgress;
import io.elastikey.keyserver.keys.KeyChange;
import io.elastikey.keyserver.keys.KeyRepository;

import java.io.PrintWriter;
import java.util.List;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The parent of the key-management commands. From the shell, a command hands itself to the key server when one
 * runs on the data directory (its control socket, {@code control.socket}), since an ElasticStore admits one process
 * at a time; otherwise it opens the store itself. Inside the server ({@link #runInServer}) the same commands work
 * on the server's own repository.
 */
@Command(name = "keys", mixinStandardHelpOptions = true,
        description = {"Manage the key server's private keys: import, generate, list, show, remove, export the "
                + "public certificates.",
                "Every command takes the server's --config/--data/--set. While a key server runs on that data "
                        + "directory, the command runs inside it (over its control socket): an imported key is "
                        + "served and a removed one refused at once, without a restart."},
        subcommands = {ImportCommand.class, GenerateCommand.class, ListCommand.class, ShowCommand.class,
                RemoveCommand.class, ExportPublicCommand.class, CountCommand.class})
public final class KeysCommand implements Runnable {
    private final Progress.Factory progress;
    private final Served served;

    /** The running server's configuration, repository and audit of key changes, for a command run inside it. */
    record Served(KeyServerConfig config, KeyRepository keys, KeyChange.Listener changes) {
    }

    @Spec
    CommandSpec spec;

    /** Without a progress display (tests, embedding). */
    public KeysCommand() {
        this(Progress.NONE);
    }

    /** With {@code progress} drawing long operations, e.g. the launcher's terminal progress bar. */
    public KeysCommand(Progress.Factory progress) {
        this(progress, null);
    }

    private KeysCommand(Progress.Factory progress, Served served) {
        this.progress = progress;
        this.served = served;
    }

    /**
     * Runs one command line ({@code import ...}, {@code remove ...}) inside the key server, on {@code keys}; what a
     * control-socket client asks for. Each key it adds, updates or removes is told to {@code changes}.
     */
    public static int runInServer(KeyServerConfig config, KeyRepository keys, KeyChange.Listener changes,
                                  List<String> arguments, PrintWriter out, PrintWriter err, RemoteProgress progress) {
        CommandLine commandLine = new CommandLine(new KeysCommand(ControlProgress.sending(progress),
                new Served(config, keys, changes)));
        commandLine.setOut(out);
        commandLine.setErr(err);
        return commandLine.execute(arguments.toArray(String[]::new));
    }

    Progress.Factory progress() {
        return progress;
    }

    /** The server a command runs inside, or {@code null} in the shell. */
    Served served() {
        return served;
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** The command tree with its subcommands, for callers that run it on its own. */
    public static CommandLine commandLine(Progress.Factory progress) {
        return new CommandLine(new KeysCommand(progress));
    }
}

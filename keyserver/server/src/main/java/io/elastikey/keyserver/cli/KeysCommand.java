// KeysCommand -- `elastikey keys`: key management on the key server's data directory.
package io.elastikey.keyserver.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The parent of the key-management commands. They open the key store directly, so they run while the key server
 * is stopped (ElasticStore admits one process at a time, and says which one holds it).
 */
@Command(name = "keys", mixinStandardHelpOptions = true,
        description = {"Manage the key server's private keys: import, generate, list, show, remove, export the "
                + "public certificates.",
                "Every command takes the server's --config/--data/--set; run them while the key server is stopped."},
        subcommands = {ImportCommand.class, GenerateCommand.class, ListCommand.class, ShowCommand.class,
                RemoveCommand.class, ExportPublicCommand.class, CountCommand.class})
public final class KeysCommand implements Runnable {
    private final Progress.Factory progress;

    @Spec
    CommandSpec spec;

    /** Without a progress display (tests, embedding). */
    public KeysCommand() {
        this(Progress.NONE);
    }

    /** With {@code progress} drawing long operations, e.g. the launcher's terminal progress bar. */
    public KeysCommand(Progress.Factory progress) {
        this.progress = progress;
    }

    Progress.Factory progress() {
        return progress;
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

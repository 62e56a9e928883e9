// StoreCommand -- `elastikey store`: the command group for an ElasticStore on its own (serve, load).
package io.elastikey.resp.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Groups the store's subcommands; more (check, compact, ...) can join {@code subcommands}. */
@Command(name = "store", mixinStandardHelpOptions = true,
        description = "An ElasticStore on its own: serve it to Redis clients, load it with test data.",
        subcommands = {ServeCommand.class, LoadCommand.class})
public final class StoreCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}

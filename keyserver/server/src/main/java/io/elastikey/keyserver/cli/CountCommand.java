// CountCommand -- `keys count`: how many keys the store holds.
package io.elastikey.keyserver.cli;

import io.elastikey.keyserver.keys.KeyRepository;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Prints the kept key count, or with {@code --recount} walks the store and corrects it. */
@Command(name = "count", mixinStandardHelpOptions = true,
        description = "Print the number of keys (--recount walks the store and corrects the kept count).")
final class CountCommand extends KeysSubcommand {
    @Option(names = "--recount", description = "Count by walking every entry (slow for millions of keys).")
    boolean recount;

    @Override
    int run() {
        try (RepositoryLease lease = openRepository()) {
            KeyRepository keys = lease.keys();
            out().println(recount ? keys.recount() : keys.count());
        }
        return 0;
    }
}

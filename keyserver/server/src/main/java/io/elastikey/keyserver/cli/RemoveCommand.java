// RemoveCommand -- `keys remove`: a key with every alias and certificate of it.
package io.elastikey.keyserver.cli;

import io.elastikey.keyserver.keys.KeyRepository;
import io.elastikey.protocol.pki.KeyIds;

import java.util.List;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** Removes keys; an identifier that names no key is an error (exit 1) after the others are removed. */
@Command(name = "remove", mixinStandardHelpOptions = true,
        description = "Remove keys, with every alias and certificate of them.")
final class RemoveCommand extends KeysSubcommand {
    @Parameters(paramLabel = "ID|ALIAS", arity = "1..*", description = "Key IDs or aliases (hex, either case).")
    List<String> identifiers;

    @Override
    int run() {
        int missing = 0;
        try (RepositoryLease lease = openRepository()) {
            KeyRepository keys = lease.keys();
            for (String identifier : identifiers) {
                String keyId = keys.resolve(identifier);
                if (keyId != null && keys.remove(keyId, lease.changes())) {
                    out().println("removed " + keyId);
                } else {
                    spec.commandLine().getErr().println("elastikey keys remove: no key has the identifier "
                            + KeyIds.normalize(identifier));
                    missing++;
                }
            }
        }
        return missing == 0 ? 0 : 1;
    }
}

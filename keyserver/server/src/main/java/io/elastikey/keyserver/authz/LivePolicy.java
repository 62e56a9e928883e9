package io.elastikey.keyserver.authz;

import io.elastikey.keyserver.keys.LoadedKey;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * The access policy in force, replaced as a whole when the policy file changes. Connections
 * resolve their grants against it lazily: after a reload, a connection's next request is
 * judged by the new policy, so revoking a client's grant takes effect without reconnecting.
 */
public final class LivePolicy {
    private final Path file;
    private volatile AccessPolicy current;

    public LivePolicy(Path file) throws IOException {
        this.file = file;
        this.current = AccessPolicy.load(file);
    }

    /** Loads the file again; on a parse error the old policy stays and the error propagates. */
    public void reload() throws IOException {
        current = AccessPolicy.load(file);
    }

    public AccessPolicy current() {
        return current;
    }

    public Path file() {
        return file;
    }

    /** The grants of {@code client}, re-resolved whenever the policy has been replaced. */
    public ClientGrants grantsFor(ClientIdentity client) {
        return new ClientGrants(client);
    }

    /** One client's grants under whichever policy is current. */
    public final class ClientGrants {
        private final ClientIdentity client;
        /** The grants and the policy they were resolved against, swapped together; no lock per request. */
        private volatile Resolved resolved;

        private ClientGrants(ClientIdentity client) {
            this.client = client;
        }

        public boolean permits(LoadedKey key) {
            return grants().permits(key);
        }

        /** {@link Grants#permits(String, Set, List)} under the current policy. */
        public boolean permits(String keyId, Set<String> tags, List<String> names) {
            return grants().permits(keyId, tags, names);
        }

        private Grants grants() {
            AccessPolicy policy = current;
            Resolved r = resolved;
            if (r == null || r.policy != policy) {
                r = new Resolved(policy, policy.grantsFor(client));
                resolved = r;
            }
            return r.grants;
        }
    }

    private record Resolved(AccessPolicy policy, Grants grants) {
    }
}

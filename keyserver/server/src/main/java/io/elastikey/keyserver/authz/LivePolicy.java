package io.elastikey.keyserver.authz;

import io.elastikey.keyserver.keys.LoadedKey;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The access policy in force, replaced as a whole when the policy file changes. Connections
 * resolve their grants against it lazily: after a reload, a connection's next request is
 * judged by the new policy, so revoking a client's grant takes effect without reconnecting.
 *
 * <p>A file that does not load keeps the policy in force: one with errors, and one with no rule at
 * all. An empty file is what a deploy tool leaves between truncating and writing, or what a failed
 * copy leaves; taking it would deny every client until someone notices. So a policy file must hold at
 * least one rule, at start as on reload (to revoke every client at once, grant a tag no key carries).
 * Failed reloads are counted and the time of the last good load is kept, for the metrics.
 */
public final class LivePolicy {
    private final Path file;
    private volatile AccessPolicy current;
    private final AtomicLong reloads = new AtomicLong();
    private final AtomicLong failedReloads = new AtomicLong();
    private volatile long loadedAtMillis;

    public LivePolicy(Path file) throws IOException {
        this.file = file;
        this.current = load(file);
        this.loadedAtMillis = System.currentTimeMillis();
    }

    /**
     * Loads the file again; when it has errors or no rule, the old policy stays, the failure is counted and the
     * error propagates.
     */
    public void reload() throws IOException {
        try {
            current = load(file);
        } catch (IOException | RuntimeException e) {
            failedReloads.incrementAndGet();
            throw e;
        }
        loadedAtMillis = System.currentTimeMillis();
        reloads.incrementAndGet();
    }

    private static AccessPolicy load(Path file) throws IOException {
        AccessPolicy policy = AccessPolicy.load(file);
        if (policy.ruleCount() == 0) {
            throw new IOException(file + ": the policy has no rule (the file is empty or only comments), which "
                    + "would deny every client; a policy file needs at least one rule (docs/authorization.md)");
        }
        return policy;
    }

    public AccessPolicy current() {
        return current;
    }

    public Path file() {
        return file;
    }

    /** Reloads that replaced the policy since start. */
    public long reloads() {
        return reloads.get();
    }

    /** Reloads refused since start (errors, no rule, unreadable file); the policy in force stayed. */
    public long failedReloads() {
        return failedReloads.get();
    }

    /** When the policy in force was loaded, in milliseconds since the epoch. */
    public long loadedAtMillis() {
        return loadedAtMillis;
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

// RepositoryLease -- the key repository one keys command works on: opened for it, or the running server's own.
package io.elastikey.keyserver.cli;

import io.elastikey.keyserver.keys.KeyChange;
import io.elastikey.keyserver.keys.KeyRepository;

/**
 * A command run from the shell opens the store and closes it at its end; the same command run inside the key
 * server (over its control socket) borrows the server's repository, which must stay open for the server, and
 * tells the server's audit trail of each key it changes ({@code changes}).
 */
record RepositoryLease(KeyRepository keys, boolean owned, KeyChange.Listener changes) implements AutoCloseable {
    static RepositoryLease opened(KeyRepository keys) {
        return new RepositoryLease(keys, true, KeyChange.Listener.NONE);
    }

    static RepositoryLease borrowed(KeyRepository keys, KeyChange.Listener changes) {
        return new RepositoryLease(keys, false, changes);
    }

    @Override
    public void close() {
        if (owned) {
            keys.close();
        }
    }
}

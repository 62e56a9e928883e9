// StoreLockedException -- another process (or store instance) already has the data directory open.
package io.elastikey.store;

/** A data directory is open for writing by another process or another store in this JVM. */
public final class StoreLockedException extends StoreException {
    private static final long serialVersionUID = 1L;

    public StoreLockedException(String message) {
        super(message);
    }
}

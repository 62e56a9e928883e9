// KeyChange -- what a write did to one stored key, as the audit trail names it.
package io.elastikey.keyserver.keys;

/** The three ways a key's record changes. */
public enum KeyChange {
    /** A key that was not stored is now. */
    ADDED("ADD-KEY"),
    /** A stored key got a new certificate, aliases or tags; its private key is the same (its key ID says so). */
    UPDATED("UPDATE-KEY"),
    /** The key, its aliases and its certificates are gone. */
    REMOVED("REMOVE-KEY");

    private final String label;

    KeyChange(String label) {
        this.label = label;
    }

    /** Upper case, like the SKI methods beside it in the audit log's {@code method} field. */
    public String label() {
        return label;
    }

    /** Told of every key a write changed, after the store has the change; on the writing thread. */
    @FunctionalInterface
    public interface Listener {
        /** For writes nobody needs told of: tests, benchmarks, the shell's own commands. */
        Listener NONE = (change, keyId) -> { };

        void changed(KeyChange change, String keyId);
    }
}

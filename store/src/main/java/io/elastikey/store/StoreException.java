// StoreException -- the unchecked failure every store operation reports (I/O, corruption, locking).
package io.elastikey.store;

/**
 * A store operation failed for a reason other than bad arguments. Subclasses name the failures a
 * caller may handle differently; the message always says which file or key was involved, never a
 * value's bytes.
 */
public class StoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public StoreException(String message) {
        super(message);
    }

    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}

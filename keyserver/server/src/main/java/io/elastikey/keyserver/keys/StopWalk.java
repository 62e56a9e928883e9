// StopWalk -- thrown through KeyValueStore.forEach to end a walk of the store early.
package io.elastikey.keyserver.keys;

/**
 * Ends a {@link io.elastikey.store.KeyValueStore#forEach} walk from inside its visitor, which has no other way to
 * say it has seen enough. One shared instance without a stack trace: it is control flow, not an error.
 */
final class StopWalk extends RuntimeException {
    private static final long serialVersionUID = 1L;
    static final StopWalk INSTANCE = new StopWalk();

    private StopWalk() {
        super(null, null, false, false);
    }
}

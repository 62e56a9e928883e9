// KeylessFrame -- what the frame decoder hands on: a readable message, or the reason one could not be read.
package io.elastikey.protocol.keyless;

/**
 * One frame off the wire. A {@link KeylessMessage} was read whole; a {@link KeylessProblem} is a frame that must
 * be answered with an error, and says whether the connection can go on.
 */
public sealed interface KeylessFrame permits KeylessMessage, KeylessProblem {
    /** The request ID from the header, which the answer carries back. */
    int id();
}

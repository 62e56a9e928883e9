// MalformedMessageException -- a line that is not a message of the rescale protocol.
package io.elastikey.scaleup.protocol;

/**
 * A line that does not parse, lacks a field, holds a field of the wrong type or breaks a limit. The message names
 * the problem in words fit for an {@code error} answer; it never quotes the offending bytes.
 */
public final class MalformedMessageException extends Exception {

    public MalformedMessageException(String message) {
        super(message, null, false, false);
    }
}

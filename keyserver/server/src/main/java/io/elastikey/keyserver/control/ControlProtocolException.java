// ControlProtocolException -- bytes on the control socket that are not a keys command or its answer.
package io.elastikey.keyserver.control;

import java.io.IOException;

/** The peer on the control socket sent something {@link ControlWire} does not accept; the message says what. */
public final class ControlProtocolException extends IOException {
    ControlProtocolException(String message) {
        super(message);
    }
}

// LedgerException -- the ledger file cannot be read or written; the message names the file.
package io.elastikey.scaleup.agent.ledger;

import java.io.IOException;

/** A ledger that is corrupt or cannot be written. The agent refuses to start on one rather than reset it. */
public final class LedgerException extends IOException {

    public LedgerException(String message) {
        super(message);
    }

    public LedgerException(String message, Throwable cause) {
        super(message, cause);
    }
}

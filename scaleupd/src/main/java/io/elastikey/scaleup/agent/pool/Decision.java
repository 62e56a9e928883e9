// Decision -- what the pool decided for one request, before actuation.
package io.elastikey.scaleup.agent.pool;

import io.elastikey.scaleup.ScaleUpResponse.Status;

/**
 * @param status granted, partial or denied (never error: the pool always decides)
 * @param previousMb the client's grant before the request
 * @param grantedMb the client's grant after it
 * @param poolFreeMb what the pool can still lend after it
 * @param message the reason in words, for the answer and the log
 */
public record Decision(Status status, String client, long previousMb, long grantedMb, long poolFreeMb,
                       String message) {

    /** Whether the grant moved, so the ledger, the actuator and the hot-plug delay have work. */
    public boolean changed() {
        return previousMb != grantedMb;
    }
}

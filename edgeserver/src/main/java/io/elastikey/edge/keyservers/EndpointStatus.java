// EndpointStatus -- a snapshot of one key-server endpoint, for /readyz, status pages and logs.
package io.elastikey.edge.keyservers;

/**
 * How one endpoint stood when {@link KeyServerPool#status()} was called.
 *
 * @param endpoint            the key server
 * @param state               its breaker's state
 * @param outstanding         requests sent to it and not yet completed
 * @param consecutiveFailures failures since its last success
 * @param lastError           the last failure that counted against it, as text, or {@code null} if none yet; never
 *                            holds request data (SKI exceptions carry none)
 */
public record EndpointStatus(KeyServerEndpoint endpoint, BreakerState state, int outstanding,
                             int consecutiveFailures, String lastError) {

    /** {@code 127.0.0.1:8443 open (TIMEOUT: no answer within 500 ms)}: the form NoKeyServerException lists. */
    @Override
    public String toString() {
        return endpoint + " " + state.label() + (lastError != null ? " (" + lastError + ")" : "");
    }
}

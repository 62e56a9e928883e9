// NoKeyServerException -- an operation found every key server's breaker open and was not sent anywhere.
package io.elastikey.edge.keyservers;

import java.io.IOException;
import java.util.List;

/**
 * Every endpoint of the pool was unavailable (breaker open, or half-open with its one trial already out), so the
 * operation failed at once without being sent. The message lists each endpoint with its state and last error, which
 * is what an operator needs from the one log line a failed handshake may produce.
 */
public final class NoKeyServerException extends IOException {
    private static final long serialVersionUID = 1L;

    private final transient List<EndpointStatus> endpoints;

    public NoKeyServerException(List<EndpointStatus> endpoints) {
        super(message(endpoints));
        this.endpoints = List.copyOf(endpoints);
    }

    /** The endpoints as they stood when the operation was refused. */
    public List<EndpointStatus> endpoints() {
        return endpoints;
    }

    private static String message(List<EndpointStatus> endpoints) {
        StringBuilder text = new StringBuilder("no key server available: ");
        for (int i = 0; i < endpoints.size(); i++) {
            text.append(i == 0 ? "" : ", ").append(endpoints.get(i));
        }
        return text.toString();
    }

    /**
     * No stack trace: when every key server is down these are made for each handshake, on event loops, where the
     * trace says nothing.
     */
    @Override
    public synchronized Throwable fillInStackTrace() {
        return this;
    }
}

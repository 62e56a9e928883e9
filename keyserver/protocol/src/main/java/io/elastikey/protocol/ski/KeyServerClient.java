// KeyServerClient -- what the edge and the load generator need of a key-server client, whatever its protocol.
package io.elastikey.protocol.ski;

import io.elastikey.protocol.tickets.TicketKeySet;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

/**
 * A client that performs private-key operations on a key server: {@link SkiClient} speaks SKI, and
 * {@link io.elastikey.protocol.keyless.KeylessClient} speaks the Keyless binary protocol. Both take an
 * {@link SkiRequest} and fail the same ways, so a caller's retry and breaker rules do not depend on the protocol:
 * {@link SkiException} when the server answered an error (final), {@link SkiTransportException} when no answer came
 * (may be retried elsewhere).
 */
public interface KeyServerClient extends AutoCloseable {
    /** Sends {@code request}; the future holds the output (a signature, or a raw RSA decryption). */
    CompletableFuture<byte[]> execute(SkiRequest request);

    /**
     * The deployment's session-ticket keys, over the same mutual-TLS connections as the key operations. Fails when
     * the server refuses them (the policy does not {@code allow tickets} this client), does not serve them, or
     * answers something that is not a valid set.
     */
    CompletableFuture<TicketKeySet> ticketKeys();

    /** Makes every connection now; fails if one cannot be made. */
    CompletableFuture<Void> connect();

    /** Requests accepted and not yet completed. */
    int outstanding();

    /** Connections up at this moment. */
    int connections();

    InetSocketAddress server();

    /** Fails what is outstanding with {@link SkiTransportException.Kind#CLIENT_CLOSED} and closes the connections. */
    @Override
    void close();
}

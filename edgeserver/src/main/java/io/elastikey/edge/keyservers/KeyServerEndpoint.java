// KeyServerEndpoint -- where one key server listens, and the name its TLS certificate must carry.
package io.elastikey.edge.keyservers;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * One key server the pool may use.
 *
 * @param address    its SKI address
 * @param serverName the name sent as SNI and checked against its certificate, or {@code null} for the address's host
 */
public record KeyServerEndpoint(InetSocketAddress address, String serverName) {

    public KeyServerEndpoint {
        Objects.requireNonNull(address, "address");
        if (serverName != null && serverName.isBlank()) {
            throw new IllegalArgumentException("serverName must not be blank");
        }
    }

    /** An endpoint whose certificate carries the address's host. */
    public static KeyServerEndpoint of(InetSocketAddress address) {
        return new KeyServerEndpoint(address, null);
    }

    /** {@code host:port} as configured (no DNS lookup), for logs, status and metric tags. */
    @Override
    public String toString() {
        return address.getHostString() + ":" + address.getPort();
    }
}

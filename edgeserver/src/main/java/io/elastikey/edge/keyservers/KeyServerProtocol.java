// KeyServerProtocol -- how the edge talks to its key servers.
package io.elastikey.edge.keyservers;

import io.elastikey.protocol.keyless.KeylessClient;
import io.elastikey.protocol.ski.KeyServerClient;
import io.elastikey.protocol.ski.SkiClient;
import io.elastikey.protocol.ski.SkiClientOptions;
import io.netty.handler.ssl.SslContext;

import java.net.InetSocketAddress;

/**
 * The two key-server protocols. The pool, its retries, breakers and health checks are the same for both: only the
 * client differs ({@link KeyServerClient}).
 */
public enum KeyServerProtocol {
    /** SKI over HTTP/2 or HTTP/1.1 (the default; the key server's {@code listen} port, 8443). */
    SKI,
    /** The Keyless binary protocol, pipelined (the key server's {@code keyless.listen} port, 2407). */
    KEYLESS;

    /** The client of one key server. */
    KeyServerClient client(SslContext sslContext, InetSocketAddress address, SkiClientOptions options) {
        return this == KEYLESS ? KeylessClient.create(sslContext, address, options)
                : SkiClient.create(sslContext, address, options);
    }

    /** The key server port a deployment uses by default. */
    public int defaultPort() {
        return this == KEYLESS ? 2407 : 8443;
    }
}

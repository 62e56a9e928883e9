package io.elastikey.keyserver.ski;

import java.net.SocketAddress;
import java.security.cert.X509Certificate;

/** Makes the {@link Caller} for a client certificate the TLS layer has already verified. */
@FunctionalInterface
public interface CallerResolver {
    Caller resolve(X509Certificate certificate, SocketAddress remote);
}

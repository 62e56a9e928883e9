// Listeners -- binds a server's listening socket; a failure names the setting, the address and the reason.
package io.elastikey.protocol.net;

import io.elastikey.protocol.config.ConfigException;
import io.netty.bootstrap.AbstractBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;

import java.net.InetSocketAddress;
import java.util.regex.Pattern;

/**
 * Netty reports a port in use as {@code bind(..) failed with error(-98): Address already in use}: true, but an
 * operator of a server with two or three listeners is left to guess which one. Every server binds through here, so
 * the failure says {@code admin.listen: cannot listen on 127.0.0.1:9080: address already in use}.
 */
public final class Listeners {
    /** Netty's native transport prefixes the OS message with the call and the negated errno. */
    private static final Pattern NATIVE_PREFIX = Pattern.compile("^.*failed with error\\(-?\\d+\\):\\s*");

    private Listeners() {
    }

    /**
     * Binds {@code bootstrap} to {@code address} and waits for it.
     *
     * @param setting the setting or option that named the address, for the error message
     * @throws ConfigException naming the setting, the address and the reason, when the bind fails
     */
    public static Channel bind(String setting, InetSocketAddress address, AbstractBootstrap<?, ?> bootstrap)
            throws InterruptedException {
        ChannelFuture bound = bootstrap.bind(address).await();
        if (!bound.isSuccess()) {
            throw new ConfigException(setting + ": cannot listen on " + text(address) + ": " + reason(bound.cause()),
                    bound.cause());
        }
        return bound.channel();
    }

    /** The reason of a failed bind: the operating system's words, without Netty's prefix. */
    static String reason(Throwable cause) {
        String message = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        String reason = NATIVE_PREFIX.matcher(message).replaceFirst("");
        reason = reason.isEmpty() ? message : Character.toLowerCase(reason.charAt(0)) + reason.substring(1);
        if (reason.startsWith("address already in use")) {
            return "address already in use (another process listens on that port)";
        }
        return reason;
    }

    private static String text(InetSocketAddress address) {
        String host = address.getHostString();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + address.getPort();
    }
}

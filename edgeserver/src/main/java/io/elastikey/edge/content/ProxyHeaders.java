// ProxyHeaders -- what a reverse proxy changes in headers: hop-by-hop ones out, forwarding ones in.
package io.elastikey.edge.content;

import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.AsciiString;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Hop-by-hop headers (RFC 9110 7.6.1: {@code Connection}, the ones it names, {@code Keep-Alive},
 * {@code Transfer-Encoding}, {@code TE}, {@code Trailer}, {@code Upgrade}, and every {@code Proxy-*}) describe one
 * connection and never cross the proxy, in either direction.
 *
 * <p>Towards the origin the client's {@code Host} is kept (the origin may serve several sites), and
 * {@code X-Forwarded-For} is replaced, not appended to: the edge is the first proxy a browser meets, so an
 * incoming value is whatever the client chose to claim. {@code X-Forwarded-Proto} is {@code https}, the scheme the
 * client used. {@code Expect} is dropped because the aggregator in front of us has already answered it, and the
 * {@code x-http2-*} headers Netty adds when it converts an HTTP/2 stream are ours, not the client's.
 */
final class ProxyHeaders {
    static final String VIA = "1.1 elastikey-edge";
    static final String FORWARDED_PROTO = "https";

    /** Copies of headers that Netty already validated need no second validation. */
    private static final HttpHeadersFactory COPIES = DefaultHttpHeadersFactory.headersFactory().withValidation(false);
    private static final AsciiString[] HOP_BY_HOP = {
        HttpHeaderNames.CONNECTION, AsciiString.cached("keep-alive"), HttpHeaderNames.TRANSFER_ENCODING,
        HttpHeaderNames.TE, HttpHeaderNames.TRAILER, HttpHeaderNames.UPGRADE,
    };
    /** Not copied to the origin because {@link #forOrigin} sets them itself, or they are the edge's business. */
    private static final AsciiString[] REPLACED_TOWARDS_ORIGIN = {
        HttpHeaderNames.HOST, HttpHeaderNames.CONTENT_LENGTH, HttpHeaderNames.EXPECT,
        AsciiString.cached("x-forwarded-for"), AsciiString.cached("x-forwarded-proto"),
    };

    private ProxyHeaders() {
    }

    /**
     * The headers of the request to the origin for {@code in}, from {@code client}, with a body of
     * {@code bodyLength} bytes. {@code defaultHost} stands in for a missing {@code Host} (HTTP/1.0).
     */
    static HttpHeaders forOrigin(HttpRequest in, SocketAddress client, String defaultHost, int bodyLength) {
        HttpHeaders src = in.headers();
        List<String> named = connectionNamed(src);
        HttpHeaders out = COPIES.newHeaders();
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = src.iteratorCharSequence(); it.hasNext(); ) {
            Map.Entry<CharSequence, CharSequence> h = it.next();
            CharSequence name = h.getKey();
            if (!isHopByHop(name, named) && !isOneOf(name, REPLACED_TOWARDS_ORIGIN)
                    && !AsciiString.regionMatches(name, true, 0, "x-http2-", 0, 8)) {
                out.add(name, h.getValue());
            }
        }
        out.set(HttpHeaderNames.HOST, src.get(HttpHeaderNames.HOST, defaultHost));
        if (client instanceof InetSocketAddress inet && inet.getAddress() != null) {
            out.set("x-forwarded-for", inet.getAddress().getHostAddress());
        }
        out.set("x-forwarded-proto", FORWARDED_PROTO);
        out.add(HttpHeaderNames.VIA, VIA);
        HttpMethod m = in.method();
        if (bodyLength > 0 || m.equals(HttpMethod.POST) || m.equals(HttpMethod.PUT) || m.equals(HttpMethod.PATCH)) {
            out.set(HttpHeaderNames.CONTENT_LENGTH, bodyLength);
        }
        return out;
    }

    /** Removes the hop-by-hop headers of an origin's response, in place, and adds our {@code Via}. */
    static void cleanResponse(HttpHeaders h) {
        for (String name : connectionNamed(h)) {
            h.remove(name);
        }
        for (AsciiString name : HOP_BY_HOP) {
            h.remove(name);
        }
        List<String> proxyHeaders = null;
        for (String name : h.names()) {
            if (name.regionMatches(true, 0, "proxy-", 0, 6)) {
                (proxyHeaders == null ? proxyHeaders = new ArrayList<>(2) : proxyHeaders).add(name);
            }
        }
        if (proxyHeaders != null) {
            proxyHeaders.forEach(h::remove);
        }
        h.add(HttpHeaderNames.VIA, VIA);
    }

    /** The origin-form of a request-target: an absolute-form one ({@code http://host/p}) loses scheme and host. */
    static String originForm(String uri) {
        int schemeEnd = uri.regionMatches(true, 0, "http://", 0, 7) ? 7
                : uri.regionMatches(true, 0, "https://", 0, 8) ? 8 : -1;
        if (schemeEnd < 0) {
            return uri;
        }
        for (int i = schemeEnd; i < uri.length(); i++) {
            char c = uri.charAt(i);
            if (c == '/') {
                return uri.substring(i);
            }
            if (c == '?') {
                return "/" + uri.substring(i);
            }
        }
        return "/";
    }

    private static boolean isHopByHop(CharSequence name, List<String> named) {
        if (isOneOf(name, HOP_BY_HOP) || AsciiString.regionMatches(name, true, 0, "proxy-", 0, 6)) {
            return true;
        }
        for (String n : named) {
            if (AsciiString.contentEqualsIgnoreCase(name, n)) {
                return true;
            }
        }
        return false;
    }

    /** The header names the {@code Connection} header lists (RFC 9110 7.6.1), lower case. */
    private static List<String> connectionNamed(HttpHeaders h) {
        if (!h.contains(HttpHeaderNames.CONNECTION)) {
            return List.of();
        }
        List<String> named = new ArrayList<>(2);
        for (String line : h.getAll(HttpHeaderNames.CONNECTION)) {
            for (String token : line.split(",")) {
                String t = token.trim().toLowerCase(Locale.ROOT);
                if (!t.isEmpty() && !t.equals("close") && !t.equals("keep-alive")) {
                    named.add(t);
                }
            }
        }
        return named;
    }

    private static boolean isOneOf(CharSequence name, AsciiString[] names) {
        for (AsciiString n : names) {
            if (n.contentEqualsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }
}

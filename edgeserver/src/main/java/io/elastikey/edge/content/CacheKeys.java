// CacheKeys -- a request's cache key: normalised host plus request-target, hashed when too long for the store.
package io.elastikey.edge.content;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;

/**
 * The key is the UTF-8 of {@code host + request-target}, e.g. {@code example.com/img/a.png?v=2}. The host is
 * lower-cased and loses a default port ({@code :443}, and {@code :80}, since the edge serves one site under both
 * schemes); an absolute-form target ({@code GET http://host/path}) supplies its own host, as RFC 9112 3.2.2
 * requires. The target is kept verbatim: normalising percent-encoding or query order could merge URLs the origin
 * tells apart.
 *
 * <p>A key longer than the store allows becomes {@code 0x00} followed by its SHA-256. No plain key starts with
 * {@code 0x00} (one that would is hashed too), so the two forms cannot collide.
 */
final class CacheKeys {
    static final byte HASHED = 0;
    static final int HASHED_LENGTH = 1 + 32;

    private CacheKeys() {
    }

    /** The key of {@code request} for a store accepting keys of up to {@code maxKeyBytes}. */
    static byte[] of(HttpRequest request, int maxKeyBytes) {
        String target = request.uri();
        String host = request.headers().get(HttpHeaderNames.HOST, "");
        int schemeEnd = target.regionMatches(true, 0, "http://", 0, 7) ? 7
                : target.regionMatches(true, 0, "https://", 0, 8) ? 8 : -1;
        if (schemeEnd > 0) {
            int pathStart = firstOf(target, schemeEnd, '/', '?');
            host = target.substring(schemeEnd, pathStart);
            target = pathStart == target.length() ? "/" : target.substring(pathStart);
            if (target.startsWith("?")) {
                target = "/" + target;
            }
        }
        byte[] key = (normalHost(host) + target).getBytes(UTF_8);
        return key.length > maxKeyBytes || key.length == 0 || key[0] == HASHED ? hashed(key) : key;
    }

    /** Lower case, without a trailing {@code :443} or {@code :80}. */
    static String normalHost(String host) {
        String h = host.trim().toLowerCase(Locale.ROOT);
        int colon = h.lastIndexOf(':');
        if (colon >= 0 && h.indexOf(']', colon) < 0) { // the colon of a port, not one inside [v6]
            String port = h.substring(colon + 1);
            if (port.equals("443") || port.equals("80")) {
                return h.substring(0, colon);
            }
        }
        return h;
    }

    static byte[] hashed(byte[] key) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(key);
            byte[] out = new byte[HASHED_LENGTH];
            out[0] = HASHED;
            System.arraycopy(digest, 0, out, 1, digest.length);
            return out;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    private static int firstOf(String s, int from, char a, char b) {
        for (int i = from; i < s.length(); i++) {
            if (s.charAt(i) == a || s.charAt(i) == b) {
                return i;
            }
        }
        return s.length();
    }
}

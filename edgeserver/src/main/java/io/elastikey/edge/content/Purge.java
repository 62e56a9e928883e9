// Purge -- which cache entries an operator's purge names: one URL or a URL prefix, on one host or on all.
package io.elastikey.edge.content;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.util.Locale;

/**
 * A purge names entries the way {@link CacheKeys} builds keys ({@code host + request-target}):
 * <ul>
 *   <li>{@code url=/a/b?x=1}: that exact target on every host the edge serves; {@code url=https://host/a/b?x=1}:
 *       on that host only (lower-cased, default port dropped, as keys are);
 *   <li>{@code prefix=/static/}: every target starting with it, on every host; {@code prefix=https://host/static/}:
 *       on that host only.
 * </ul>
 * Every {@code Vary} variant of a matching URL goes with it. Keys too long for the store are kept as a hash
 * (see {@link CacheKeys}); a purge by absolute URL still finds those (it hashes the URL the same way), a purge by
 * path or prefix cannot, and they leave only by expiry.
 *
 * @param host the host to match, or null for any
 * @param target the target or target prefix, starting with {@code /}
 * @param isPrefix whether {@code target} is a prefix
 */
record Purge(String host, String target, boolean isPrefix) {

    /**
     * Parses the admin endpoint's parameters; exactly one of them must be given.
     *
     * @throws IllegalArgumentException with a message for the operator when they are not usable
     */
    static Purge parse(String url, String prefix) {
        if ((url == null) == (prefix == null)) {
            throw new IllegalArgumentException("give exactly one of url= and prefix=");
        }
        String value = url != null ? url : prefix;
        String lower = value.toLowerCase(Locale.ROOT);
        int schemeEnd = lower.startsWith("http://") ? 7 : lower.startsWith("https://") ? 8 : -1;
        String host = null;
        String target = value;
        if (schemeEnd > 0) {
            int slash = value.indexOf('/', schemeEnd);
            if (slash < 0 || slash == schemeEnd) {
                throw new IllegalArgumentException("an absolute URL needs a host and a path: " + value);
            }
            host = CacheKeys.normalHost(value.substring(schemeEnd, slash));
            target = value.substring(slash);
        }
        if (!target.startsWith("/")) {
            throw new IllegalArgumentException("a path starts with /, a URL with http:// or https://: " + value);
        }
        return new Purge(host, target, prefix != null);
    }

    /**
     * The key of the named URL when the purge names exactly one (an absolute URL, not a prefix), hashed if long;
     * null otherwise. The scan cannot recognise a hashed key, so the purge deletes this one by name too.
     */
    byte[] exactKey(int maxKeyBytes) {
        if (host == null || isPrefix) {
            return null;
        }
        DefaultHttpRequest r = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, target);
        r.headers().set("host", host);
        return CacheKeys.of(r, maxKeyBytes);
    }

    /**
     * Whether the stored key (a URL's, or a variant's, which is the URL's key, {@code 0x00} and a hash) names an
     * entry this purge removes. Hashed keys never match.
     */
    boolean matches(byte[] key) {
        if (key.length == 0 || key[0] == CacheKeys.HASHED) {
            return false;
        }
        int end = 0;
        while (end < key.length && key[end] != VaryIndex.SEPARATOR) {
            end++;
        }
        String url = new String(key, 0, end, UTF_8);
        int slash = url.indexOf('/');
        if (slash < 0 || host != null && !url.substring(0, slash).equals(host)) {
            return false;
        }
        String t = url.substring(slash);
        return isPrefix ? t.startsWith(target) : t.equals(target);
    }
}

// StorePolicy -- the shared-cache rules: which requests may use the cache, which responses it may keep.
package io.elastikey.edge.content;

import io.elastikey.edge.content.CachedResponse.Field;
import io.netty.handler.codec.DateFormatter;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Locale;

/**
 * RFC 9111's storage rules as a shared cache applies them. A response is stored only when it answers a GET
 * with 200, its {@link CacheControl} allows a shared cache to keep it, it has a positive freshness lifetime, it
 * sets no cookie and it does not vary on everything ({@code Vary: *}). The lifetime comes from {@code s-maxage},
 * else {@code max-age}, else {@code Expires} minus {@code Date} (one Netty date parse, so it is cheap to honour),
 * minus the {@code Age} an upstream cache already spent. With none of them the response is not stored: this
 * cache does no heuristic freshness.
 *
 * <p>A request with {@code Authorization} or {@code Cache-Control: no-store} neither reads nor fills the cache.
 * A request's {@code no-cache} or {@code max-age=0} (a browser reload) is not honoured: at an edge it would let any
 * client send every request to the origin, and stored answers are at most their lifetime old anyway.
 *
 * <p>{@code Vary} other than {@code *} is supported: the request's values of the named headers are stored with the
 * response ({@link #varyFields}), each variant under its own key ({@link VaryIndex}), and a lookup checks them
 * ({@link #varyMatches}).
 */
final class StorePolicy {
    private StorePolicy() {
    }

    /** When a stored response was generated and when it stops being fresh, in epoch millis. */
    record Freshness(long storedAt, long expiresAt) {
    }

    /** Whether the request must neither be answered from the cache nor fill it. */
    static boolean bypasses(HttpHeaders request) {
        if (request.contains(HttpHeaderNames.AUTHORIZATION)) {
            return true;
        }
        return request.contains(HttpHeaderNames.CACHE_CONTROL)
                && CacheControl.parse(request.getAll(HttpHeaderNames.CACHE_CONTROL)).noStore();
    }

    /** The response's freshness if it may be stored, or null. Does not look at its size or {@code Vary}. */
    static Freshness freshness(HttpMethod method, HttpHeaders request, HttpResponse response, long now) {
        HttpHeaders h = response.headers();
        if (!HttpMethod.GET.equals(method) || response.status().code() != 200 || bypasses(request)
                || h.contains(HttpHeaderNames.SET_COOKIE)) {
            return null;
        }
        CacheControl cc = CacheControl.parse(h.getAll(HttpHeaderNames.CACHE_CONTROL));
        if (!cc.allowsSharedStorage()) {
            return null;
        }
        long lifetime = cc.lifetimeSeconds() >= 0 ? cc.lifetimeSeconds() * 1000 : expiresLifetime(h, now);
        List<String> ages = h.getAll(HttpHeaderNames.AGE);
        long age = ages.isEmpty() ? 0 : ages.size() == 1 ? CacheControl.deltaSeconds(ages.get(0).trim()) * 1000 : -1;
        if (age < 0 || lifetime - age <= 0) {
            return null;
        }
        return new Freshness(now - age, now - age + lifetime);
    }

    /** {@code Expires} minus {@code Date} (or now) in millis; -1 without a single valid {@code Expires}. */
    private static long expiresLifetime(HttpHeaders h, long now) {
        List<String> expires = h.getAll(HttpHeaderNames.EXPIRES);
        if (expires.size() != 1) {
            return -1;
        }
        Date until = DateFormatter.parseHttpDate(expires.get(0));
        if (until == null) {
            return -1; // RFC 9111 5.3: an invalid date means already expired
        }
        String dateValue = h.get(HttpHeaderNames.DATE);
        Date date = dateValue == null ? null : DateFormatter.parseHttpDate(dateValue);
        return until.getTime() - (date != null ? date.getTime() : now);
    }

    /**
     * The request headers the response varies on, with the request's values; an empty list without {@code Vary},
     * null when the response may not be stored ({@code Vary: *}, a name that is not a token, more than
     * {@link CachedResponse#MAX_VARY} names).
     */
    static List<Field> varyFields(HttpHeaders response, HttpHeaders request) {
        List<String> lines = response.getAll(HttpHeaderNames.VARY);
        if (lines.isEmpty()) {
            return List.of();
        }
        List<Field> fields = new ArrayList<>();
        for (String line : lines) {
            for (String part : line.split(",")) {
                String name = part.trim().toLowerCase(Locale.ROOT);
                if (name.isEmpty() || fields.stream().anyMatch(f -> f.name().equals(name))) {
                    continue;
                }
                if (name.equals("*") || !CachedResponse.isFieldName(name) || fields.size() == CachedResponse.MAX_VARY) {
                    return null;
                }
                fields.add(new Field(name, requestValue(request, name)));
            }
        }
        return fields;
    }

    /** Whether {@code request} carries the values a stored variant was selected with. */
    static boolean varyMatches(List<Field> vary, HttpHeaders request) {
        for (Field f : vary) {
            String now = requestValue(request, f.name());
            if (now == null ? f.value() != null : !now.equals(f.value())) {
                return false;
            }
        }
        return true;
    }

    /** Every line of the request header joined by ", ", or null when absent. */
    static String requestValue(HttpHeaders request, String name) {
        List<String> values = request.getAll(name);
        if (values.isEmpty()) {
            return null;
        }
        return values.size() == 1 ? values.get(0).trim() : String.join(", ", values).trim();
    }

    /** The response's headers that a hit replays, in {@link CachedResponse#REPLAYED} order. */
    static List<Field> replayed(HttpHeaders response) {
        List<Field> out = new ArrayList<>(6);
        for (String name : CachedResponse.REPLAYED) {
            for (String value : response.getAll(name)) {
                out.add(new Field(name, value));
            }
        }
        return out;
    }
}

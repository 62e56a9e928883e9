// CacheControl -- the Cache-Control directives a shared cache acts on, parsed strictly.
package io.elastikey.edge.content;

import java.util.List;
import java.util.Locale;

/**
 * The directives of a {@code Cache-Control} header (RFC 9111 section 5.2) that decide whether a shared cache may
 * store a response, for how long, and whether it may serve it stale ({@code stale-while-revalidate} and
 * {@code stale-if-error}, RFC 5861, both switched off by {@code must-revalidate} or {@code proxy-revalidate}, which
 * RFC 9111 5.2.2.2 says forbid serving stale). Every other directive ({@code public}, {@code immutable},
 * extensions) is read past and ignored: none of them makes a response storable on its own here.
 *
 * <p>Parsing is strict because a cache that guesses serves one user's page to another. Anything off the RFC grammar
 * makes the whole header {@link #malformed()}, and a malformed header forbids storage: a value that is not plain
 * digits ({@code max-age=-1}, {@code max-age=1e3}, {@code max-age=}), whitespace inside a directive
 * ({@code max-age = 60}, {@code max-age=6 0}), an unclosed quote, a character outside the token set, and a
 * {@code max-age}, {@code s-maxage}, {@code stale-while-revalidate} or {@code stale-if-error} given twice (RFC 9111 4.2.1 allows treating that as stale). Quoted values
 * ({@code max-age="60"}) are accepted, as the RFC asks of recipients. A number too big for 31 bits counts as
 * 2<sup>31</sup> seconds (RFC 9111 1.2.2), not as an error.
 *
 * <p>{@code private} and {@code no-cache} forbid storage whether or not they name fields: storing a response
 * without the named fields is allowed by the RFC but saves little and is easy to get wrong.
 *
 * @param maxAge {@code max-age} in seconds, or -1 when absent
 * @param sMaxAge {@code s-maxage} in seconds, or -1 when absent; a shared cache prefers it over {@code max-age}
 * @param noStore {@code no-store} was present
 * @param noCache {@code no-cache} was present (with or without field names)
 * @param isPrivate {@code private} was present (with or without field names)
 * @param staleWhileRevalidate {@code stale-while-revalidate} in seconds, or -1 when absent
 * @param staleIfError {@code stale-if-error} in seconds, or -1 when absent
 * @param mustRevalidate {@code must-revalidate} or {@code proxy-revalidate} was present
 * @param malformed the header broke the grammar; nothing else in the record may then be trusted
 */
public record CacheControl(long maxAge, long sMaxAge, boolean noStore, boolean noCache, boolean isPrivate,
                           long staleWhileRevalidate, long staleIfError, boolean mustRevalidate,
                           boolean malformed) {

    /** No header at all. */
    public static final CacheControl NONE = new CacheControl(-1, -1, false, false, false, -1, -1, false, false);

    /** What RFC 9111 1.2.2 says to use for a delta-seconds value that overflows 31 bits. */
    static final long MAX_DELTA_SECONDS = 1L << 31;

    private static final CacheControl MALFORMED = new CacheControl(-1, -1, false, false, false, -1, -1, false, true);

    /** Parses one header value; {@code null} gives {@link #NONE}. */
    public static CacheControl parse(CharSequence value) {
        return value == null ? NONE : parse(List.of(value));
    }

    /** Parses every line of a repeated header as one comma-separated list, as RFC 9110 5.3 prescribes. */
    public static CacheControl parse(List<? extends CharSequence> values) {
        Directives d = new Directives();
        for (CharSequence v : values) {
            if (!d.parse(v)) {
                return MALFORMED;
            }
        }
        return d.noneSeen ? NONE : new CacheControl(d.maxAge, d.sMaxAge, d.noStore, d.noCache, d.isPrivate,
                d.staleWhileRevalidate, d.staleIfError, d.mustRevalidate, false);
    }

    /** The freshness lifetime a shared cache uses: {@code s-maxage}, else {@code max-age}, else -1. */
    public long lifetimeSeconds() {
        return sMaxAge >= 0 ? sMaxAge : maxAge;
    }

    /** Millis past its freshness a stored response may be served while one revalidation runs; 0 when none. */
    public long staleWhileRevalidateMillis() {
        return mustRevalidate || staleWhileRevalidate < 0 ? 0 : staleWhileRevalidate * 1000;
    }

    /** Millis past its freshness a stored response may be served when the origin fails; 0 when none. */
    public long staleIfErrorMillis() {
        return mustRevalidate || staleIfError < 0 ? 0 : staleIfError * 1000;
    }

    /** Whether the directives let a shared cache store the response (freshness aside). */
    public boolean allowsSharedStorage() {
        return !malformed && !noStore && !noCache && !isPrivate;
    }

    /** Parse state across the lines of one header. Returns false from {@link #parse} on the first error. */
    private static final class Directives {
        long maxAge = -1;
        long sMaxAge = -1;
        boolean noStore;
        boolean noCache;
        boolean isPrivate;
        long staleWhileRevalidate = -1;
        long staleIfError = -1;
        boolean mustRevalidate;
        boolean noneSeen = true;

        boolean parse(CharSequence s) {
            int n = s.length();
            int i = 0;
            while (true) {
                while (i < n && (s.charAt(i) == ',' || s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
                    i++; // empty list elements and optional whitespace between them are allowed
                }
                if (i >= n) {
                    return true;
                }
                int start = i;
                while (i < n && isTokenChar(s.charAt(i))) {
                    i++;
                }
                if (i == start) {
                    return false;
                }
                String name = s.subSequence(start, i).toString().toLowerCase(Locale.ROOT);
                String value = null;
                if (i < n && s.charAt(i) == '=') {
                    i++;
                    StringBuilder v = new StringBuilder();
                    i = i < n && s.charAt(i) == '"' ? quoted(s, i + 1, v) : token(s, i, v);
                    if (i < 0) {
                        return false;
                    }
                    value = v.toString();
                }
                while (i < n && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
                    i++;
                }
                if ((i < n && s.charAt(i) != ',') || !apply(name, value)) {
                    return false;
                }
                noneSeen = false;
            }
        }

        private boolean apply(String name, String value) {
            switch (name) {
                case "max-age":
                    if (maxAge >= 0) {
                        return false;
                    }
                    maxAge = deltaSeconds(value);
                    return maxAge >= 0;
                case "s-maxage":
                    if (sMaxAge >= 0) {
                        return false;
                    }
                    sMaxAge = deltaSeconds(value);
                    return sMaxAge >= 0;
                case "no-store":
                    noStore = true;
                    return true;
                case "no-cache":
                    noCache = true;
                    return true;
                case "private":
                    isPrivate = true;
                    return true;
                case "stale-while-revalidate":
                    if (staleWhileRevalidate >= 0) {
                        return false;
                    }
                    staleWhileRevalidate = deltaSeconds(value);
                    return staleWhileRevalidate >= 0;
                case "stale-if-error":
                    if (staleIfError >= 0) {
                        return false;
                    }
                    staleIfError = deltaSeconds(value);
                    return staleIfError >= 0;
                case "must-revalidate":
                case "proxy-revalidate":
                    mustRevalidate = true;
                    return true;
                default:
                    return true; // public, immutable, extensions: no effect on storage
            }
        }
    }

    /** Reads a token value from {@code i} into {@code out}; returns the index after it, or -1 when it is empty. */
    private static int token(CharSequence s, int i, StringBuilder out) {
        int start = i;
        while (i < s.length() && isTokenChar(s.charAt(i))) {
            out.append(s.charAt(i++));
        }
        return i == start ? -1 : i;
    }

    /** Reads a quoted-string body from {@code i} (after the quote); returns the index after the closing quote. */
    private static int quoted(CharSequence s, int i, StringBuilder out) {
        while (i < s.length()) {
            char c = s.charAt(i++);
            if (c == '"') {
                return i;
            }
            if (c == '\\') {
                if (i >= s.length()) {
                    return -1;
                }
                c = s.charAt(i++);
            }
            if (c < 0x20 && c != '\t' || c == 0x7f || c > 0xff) {
                return -1;
            }
            out.append(c);
        }
        return -1; // unclosed
    }

    /** Plain ASCII digits to seconds, saturating at {@link #MAX_DELTA_SECONDS}; -1 when absent or not digits. */
    static long deltaSeconds(String value) {
        if (value == null || value.isEmpty()) {
            return -1;
        }
        long v = 0;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = Math.min(MAX_DELTA_SECONDS, v * 10 + (c - '0'));
        }
        return v;
    }

    /** RFC 9110 5.6.2 tchar. */
    private static boolean isTokenChar(char c) {
        if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
            return true;
        }
        return "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
    }
}

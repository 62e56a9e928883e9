// Conditionals -- conditional requests on both sides of the cache: to the origin, and from clients.
package io.elastikey.edge.content;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.DateFormatter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.AsciiString;
import java.util.Date;

/**
 * The cache fetches whole responses so that it can keep them: a client's {@code If-None-Match} and
 * {@code If-Modified-Since} are taken off the request it sends to the origin, replaced by the stored entry's
 * validators when it revalidates one, and evaluated by the edge against the answer it sends (RFC 9110 13.1.2,
 * 13.1.3, 13.2.2), which turns a 200 into a 304 when the client already has it.
 *
 * <p>Requests with {@code Range}, {@code If-Range}, {@code If-Match} or {@code If-Unmodified-Since} are not
 * handled here: they go to the origin as they came, alone, and their answers are passed through.
 */
final class Conditionals {
    /** Headers a 304 keeps from the 200 it stands for (RFC 9110 15.4.5), and ours. */
    private static final AsciiString[] KEPT_ON_304 = {
        HttpHeaderNames.CACHE_CONTROL, HttpHeaderNames.CONTENT_LOCATION, HttpHeaderNames.DATE, HttpHeaderNames.ETAG,
        HttpHeaderNames.EXPIRES, HttpHeaderNames.VARY, HttpHeaderNames.LAST_MODIFIED, HttpHeaderNames.AGE,
        HttpHeaderNames.VIA, ContentHandler.X_CACHE};

    private Conditionals() {
    }

    /** Whether the request may share a fetch and an answer with other clients: nothing partial or precondition. */
    static boolean shareable(HttpHeaders request) {
        return !request.contains(HttpHeaderNames.RANGE) && !request.contains(HttpHeaderNames.IF_RANGE)
                && !request.contains(HttpHeaderNames.IF_MATCH) && !request.contains(HttpHeaderNames.IF_UNMODIFIED_SINCE);
    }

    /** Replaces the client's validators in {@code out} by those of {@code stored} (may be null: none). */
    static void forOrigin(HttpHeaders out, CachedResponse stored) {
        out.remove(HttpHeaderNames.IF_NONE_MATCH).remove(HttpHeaderNames.IF_MODIFIED_SINCE);
        if (stored == null) {
            return;
        }
        String etag = stored.header("etag");
        String lastModified = stored.header("last-modified");
        if (etag != null) {
            out.set(HttpHeaderNames.IF_NONE_MATCH, etag);
        }
        if (lastModified != null) {
            out.set(HttpHeaderNames.IF_MODIFIED_SINCE, lastModified);
        }
    }

    /**
     * Whether a client sending {@code request} already has the 200 whose headers are {@code response}:
     * {@code If-None-Match} lists its entity tag (weak comparison) or is {@code *}; without {@code If-None-Match},
     * {@code If-Modified-Since} is not before its {@code Last-Modified}.
     */
    static boolean notModified(HttpHeaders request, HttpHeaders response) {
        String inm = request.get(HttpHeaderNames.IF_NONE_MATCH);
        if (inm != null) {
            String etag = response.get(HttpHeaderNames.ETAG);
            return inm.trim().equals("*") || etag != null && listsTag(String.join(",",
                    request.getAll(HttpHeaderNames.IF_NONE_MATCH)), opaque(etag.trim()));
        }
        String ims = request.get(HttpHeaderNames.IF_MODIFIED_SINCE);
        String lm = response.get(HttpHeaderNames.LAST_MODIFIED);
        if (ims == null || lm == null) {
            return false;
        }
        Date since = DateFormatter.parseHttpDate(ims);
        Date modified = DateFormatter.parseHttpDate(lm);
        return since != null && modified != null && !modified.after(since);
    }

    /** The 304 that stands for {@code full}, which it releases. */
    static FullHttpResponse notModifiedResponse(FullHttpResponse full) {
        FullHttpResponse out = new DefaultFullHttpResponse(full.protocolVersion(), HttpResponseStatus.NOT_MODIFIED,
                Unpooled.EMPTY_BUFFER);
        for (AsciiString name : KEPT_ON_304) {
            for (String v : full.headers().getAll(name)) {
                out.headers().add(name, v);
            }
        }
        full.release();
        return out;
    }

    /** Whether the comma-separated list of entity tags holds one whose opaque part is {@code tag}. */
    private static boolean listsTag(String list, String tag) {
        int i = 0;
        int n = list.length();
        while (i < n) {
            char c = list.charAt(i);
            if (c == ',' || c == ' ' || c == '\t') {
                i++;
                continue;
            }
            int start = i;
            if (list.startsWith("W/", i)) {
                i += 2;
            }
            if (i >= n || list.charAt(i) != '"') {
                return false; // not an entity tag: ignore the header's promise rather than guess
            }
            int close = list.indexOf('"', i + 1);
            if (close < 0) {
                return false;
            }
            if (opaque(list.substring(start, close + 1)).equals(tag)) {
                return true;
            }
            i = close + 1;
        }
        return false;
    }

    /** The quoted part of an entity tag, without {@code W/}: the weak comparison of RFC 9110 8.8.3.2. */
    private static String opaque(String etag) {
        return etag.startsWith("W/") ? etag.substring(2) : etag;
    }
}

// RequestChecks -- the HTTP status for a request line a server will not serve, and for what the decoder refused.
package io.elastikey.protocol.http;

import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpContentException;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;

/**
 * One answer per kind of unservable request, the same at the key server and the edge (RFC 9110 section 15):
 * <ul>
 *   <li>a version other than HTTP/1.x: {@code 505}. Netty's decoder accepts any {@code NAME/major.minor}, so
 *       {@code HTTP/9.9} would otherwise be served, and answered in a version that does not exist;
 *   <li>a request line or target over the limit: {@code 414}; a header block over it: {@code 431};
 *       a body over it: {@code 413};
 *   <li>a request that did not arrive in time ({@link RequestReadTimer}): {@code 408};
 *   <li>anything else the decoder could not read: {@code 400}.
 * </ul>
 */
public final class RequestChecks {
    private RequestChecks() {
    }

    /**
     * Why {@code request}'s request line is not served, as the status to answer and close with; {@code null} when
     * it is fine. The target may be at most {@code maxTargetLength} characters (an HTTP/2 {@code :path} is bounded
     * only by the header limit).
     */
    public static HttpResponseStatus requestLineProblem(HttpRequest request, int maxTargetLength) {
        HttpVersion version = request.protocolVersion();
        if (!"HTTP".equals(version.protocolName())) {
            return HttpResponseStatus.BAD_REQUEST;
        }
        if (version.majorVersion() != 1) {
            return HttpResponseStatus.HTTP_VERSION_NOT_SUPPORTED;
        }
        if (request.uri().length() > maxTargetLength) {
            return HttpResponseStatus.REQUEST_URI_TOO_LONG;
        }
        return null;
    }

    /**
     * Why an HTTP/1.x {@code request}, aggregated, is not forwarded: RFC 9112 requires {@code 400} for an HTTP/1.1
     * request without exactly one {@code Host} (or any request with several), since a proxy and the server behind
     * it could take different ones; and a transfer coding other than {@code chunked} (left in the header once the
     * aggregator has taken {@code chunked} out) is {@code 501}: the body would go on still encoded and unlabelled.
     * {@code null} when neither applies. For a proxy; the key server routes by nothing a client names.
     */
    public static HttpResponseStatus proxiedRequestProblem(HttpRequest request) {
        int hosts = request.headers().getAll(HttpHeaderNames.HOST).size();
        if (hosts > 1 || hosts == 0 && request.protocolVersion().equals(HttpVersion.HTTP_1_1)) {
            return HttpResponseStatus.BAD_REQUEST;
        }
        if (request.headers().contains(HttpHeaderNames.TRANSFER_ENCODING)) {
            return HttpResponseStatus.NOT_IMPLEMENTED;
        }
        return null;
    }

    /** The status for a request whose decoder result failed with {@code cause}. */
    public static HttpResponseStatus undecodable(Throwable cause) {
        if (cause instanceof RequestReadTimeoutException) {
            return HttpResponseStatus.REQUEST_TIMEOUT;
        }
        if (cause instanceof TooLongHttpLineException) {
            return HttpResponseStatus.REQUEST_URI_TOO_LONG;
        }
        if (cause instanceof TooLongHttpContentException) {
            return HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE;
        }
        if (cause instanceof TooLongHttpHeaderException || cause instanceof TooLongFrameException) {
            return HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE;
        }
        return HttpResponseStatus.BAD_REQUEST;
    }

    /**
     * Whether the connection closes after the answer to {@code request}, whose decoder result failed: it does, since
     * the stream is out of sync, except after a body over the limit ({@link OversizedRequestAggregator} dropped the
     * rest of it) on a request that did not ask to close and carried no {@code Expect} header (a client that expects
     * {@code 100 Continue} and gets {@code 413} may send its body or may not, and the next request cannot be told from
     * the body's bytes).
     */
    public static boolean closesAfterUndecodable(HttpRequest request) {
        if (request.decoderResult().cause() instanceof TooLongHttpContentException) {
            return !HttpUtil.isKeepAlive(request) || request.headers().contains(HttpHeaderNames.EXPECT);
        }
        return true;
    }

    /**
     * Whether a request refused for {@code cause} is the client's protocol error, to be counted and logged: a body
     * over the limit is not one (a client may well send one), and the request-read timer counts its own expiries.
     */
    public static boolean isProtocolError(Throwable cause) {
        return !(cause instanceof TooLongHttpContentException || cause instanceof RequestReadTimeoutException);
    }

    /**
     * The request target's path: the target up to its query, so that {@code /ticket-keys?x=1} is routed as
     * {@code /ticket-keys} and {@code /?a=b} as {@code /}. The target itself, not a copy, when it has no query.
     */
    public static String pathOf(String uri) {
        int query = uri.indexOf('?');
        return query < 0 ? uri : uri.substring(0, query);
    }

    /** The version to answer {@code request} in: its own for HTTP/1.0 and 1.1, else HTTP/1.1. */
    public static HttpVersion answerVersion(HttpRequest request) {
        HttpVersion version = request.protocolVersion();
        return version.equals(HttpVersion.HTTP_1_0) ? HttpVersion.HTTP_1_0 : HttpVersion.HTTP_1_1;
    }
}

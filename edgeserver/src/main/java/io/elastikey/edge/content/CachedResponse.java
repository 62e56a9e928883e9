// CachedResponse -- one stored answer: what is replayed, for how long, and its binary form in the store.
package io.elastikey.edge.content;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.US_ASCII;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A response as the cache keeps it. Only the end-to-end headers a client needs to use the body are kept
 * ({@link #REPLAYED}); hop-by-hop ones and everything about the origin's connection are not.
 *
 * <h2>Value layout, version 1</h2>
 * Big-endian, in this order, with nothing after the body:
 * <pre>
 *   u8   version            1
 *   u16  status             100..599
 *   i64  storedAt           epoch millis the response was generated (now minus the origin's Age)
 *   i64  expiresAt          epoch millis it stops being fresh; never before storedAt
 *   u8   H                  replayed headers, at most 32; each:
 *          u8   id          index into REPLAYED
 *          u16  L, L bytes  value, ISO-8859-1 (header octets as they came)
 *   u8   V                  request headers the response varies on, at most 8; each:
 *          u8   N, N bytes  name, lower-case ASCII, 1..64 bytes
 *          u16  L, L bytes  the request's value when stored, ISO-8859-1; L = 0xFFFF: the header was absent
 *   i32  B, B bytes         body
 * </pre>
 * Header names are table ids rather than text so that a damaged value cannot smuggle in an arbitrary header.
 * {@link #decode} checks every length and range and answers null for anything else: the cache then counts a
 * miss and deletes the value. The body of a decoded response is a view of the stored array, never a copy.
 */
final class CachedResponse {
    static final byte VERSION = 1;
    static final int MAX_HEADERS = 32;
    static final int MAX_VARY = 8;
    static final int MAX_NAME = 64;
    static final int MAX_VALUE = 0xFFFE;
    /**
     * How long past its freshness an entry with a validator ({@code ETag} or {@code Last-Modified}) is kept, so that
     * a later request can revalidate it (a 304 costs the origin no body) rather than fetch it whole.
     */
    static final long REVALIDATION_WINDOW_MILLIS = 3_600_000;
    private static final int ABSENT = 0xFFFF;
    private static final int FIXED = 1 + 2 + 8 + 8 + 1 + 1 + 4;

    /** Response headers worth replaying, by id; the order is part of the layout: append only. */
    static final List<String> REPLAYED = List.of(
            "content-type", "content-encoding", "content-language", "content-disposition", "cache-control",
            "expires", "etag", "last-modified", "vary", "date", "access-control-allow-origin");

    /** One header line; for a vary entry {@code value} is null when the request did not carry the header. */
    record Field(String name, String value) {
    }

    final int status;
    final List<Field> headers;
    final List<Field> vary;
    final long storedAt;
    final long expiresAt;
    private final byte[] array;
    private final int bodyOffset;
    private final int bodyLength;
    /** Parsed when first needed: a fresh hit never needs it. */
    private CacheControl cacheControl;

    private CachedResponse(int status, List<Field> headers, List<Field> vary, long storedAt, long expiresAt,
                           byte[] array, int bodyOffset, int bodyLength) {
        this.status = status;
        this.headers = headers;
        this.vary = vary;
        this.storedAt = storedAt;
        this.expiresAt = expiresAt;
        this.array = array;
        this.bodyOffset = bodyOffset;
        this.bodyLength = bodyLength;
    }

    private CacheControl cacheControl() {
        if (cacheControl == null) {
            List<String> cc = new ArrayList<>(1);
            for (Field f : headers) {
                if (f.name().equals("cache-control")) {
                    cc.add(f.value());
                }
            }
            cacheControl = cc.isEmpty() ? CacheControl.NONE : CacheControl.parse(cc);
        }
        return cacheControl;
    }

    /** The same body under new headers and freshness (a 304 refreshed them, RFC 9111 4.3.4); shares the array. */
    CachedResponse refreshed(List<Field> newHeaders, long newStoredAt, long newExpiresAt) {
        return new CachedResponse(status, List.copyOf(newHeaders), vary, newStoredAt, newExpiresAt, array, bodyOffset,
                bodyLength);
    }

    /** The first stored value of a replayed header, or null. */
    String header(String name) {
        for (Field f : headers) {
            if (f.name().equals(name)) {
                return f.value();
            }
        }
        return null;
    }

    boolean isFresh(long now) {
        return expiresAt > now;
    }

    /** Whether it has a validator the origin can answer a conditional request about. */
    boolean hasValidator() {
        return header("etag") != null || header("last-modified") != null;
    }

    /** Stale, but within {@code stale-while-revalidate}: serve it now and revalidate in the background. */
    boolean servableWhileRevalidating(long now) {
        return !isFresh(now) && now < expiresAt + cacheControl().staleWhileRevalidateMillis();
    }

    /** Stale, but within {@code stale-if-error}: serve it when the origin fails or answers 5xx. */
    boolean servableOnError(long now) {
        return !isFresh(now) && now < expiresAt + cacheControl().staleIfErrorMillis();
    }

    /**
     * Until when the entry is worth keeping: its freshness plus the longest of its {@code stale-*} windows and, when
     * it has a validator, {@link #REVALIDATION_WINDOW_MILLIS}. Past this it is deleted.
     */
    long retainUntil() {
        return retainUntil(cacheControl(), hasValidator(), expiresAt);
    }

    /** {@link #retainUntil()} of an entry with {@code headers} that is fresh until {@code expiresAt}. */
    static long retainUntil(List<Field> headers, long expiresAt) {
        List<String> cc = new ArrayList<>(1);
        boolean validator = false;
        for (Field f : headers) {
            cc.addAll(f.name().equals("cache-control") ? List.of(f.value()) : List.of());
            validator |= f.name().equals("etag") || f.name().equals("last-modified");
        }
        return retainUntil(cc.isEmpty() ? CacheControl.NONE : CacheControl.parse(cc), validator, expiresAt);
    }

    private static long retainUntil(CacheControl cc, boolean validator, long expiresAt) {
        long grace = Math.max(cc.staleWhileRevalidateMillis(), cc.staleIfErrorMillis());
        if (validator) {
            grace = Math.max(grace, REVALIDATION_WINDOW_MILLIS);
        }
        return expiresAt + grace;
    }

    /** The encoded size, or -1 when the fields break a limit of the layout (too many, too long, not Latin-1). */
    static int encodedSize(List<Field> headers, List<Field> vary, int bodyLength) {
        if (headers.size() > MAX_HEADERS || vary.size() > MAX_VARY) {
            return -1;
        }
        long size = FIXED + (long) bodyLength;
        for (Field f : headers) {
            if (!REPLAYED.contains(f.name()) || f.value() == null || !latin1(f.value(), MAX_VALUE)) {
                return -1;
            }
            size += 1 + 2 + f.value().length();
        }
        for (Field f : vary) {
            if (!isFieldName(f.name()) || !latin1(f.value(), MAX_VALUE)) {
                return -1;
            }
            size += 1 + f.name().length() + 2 + (f.value() == null ? 0 : f.value().length());
        }
        return size > Integer.MAX_VALUE ? -1 : (int) size;
    }

    /** Encodes into a new array of {@code size} bytes (from {@link #encodedSize}); reads {@code body} in place. */
    static byte[] encode(int status, List<Field> headers, List<Field> vary, long storedAt, long expiresAt,
                         ByteBuf body, int size) {
        ByteBuffer out = ByteBuffer.allocate(size);
        out.put(VERSION).putShort((short) status).putLong(storedAt).putLong(expiresAt);
        out.put((byte) headers.size());
        for (Field f : headers) {
            out.put((byte) REPLAYED.indexOf(f.name()));
            putValue(out, f.value());
        }
        out.put((byte) vary.size());
        for (Field f : vary) {
            out.put((byte) f.name().length()).put(f.name().getBytes(US_ASCII));
            putValue(out, f.value());
        }
        int length = body.readableBytes();
        out.putInt(length);
        body.getBytes(body.readerIndex(), out.array(), out.position(), length);
        if (out.position() + length != size) {
            throw new IllegalArgumentException("size " + size + " does not match the fields");
        }
        return out.array();
    }

    private static void putValue(ByteBuffer out, String value) {
        if (value == null) {
            out.putShort((short) ABSENT);
        } else {
            out.putShort((short) value.length()).put(value.getBytes(ISO_8859_1));
        }
    }

    /** The stored response, or null when {@code value} is not a valid version-1 encoding. */
    static CachedResponse decode(byte[] value) {
        try {
            ByteBuffer in = ByteBuffer.wrap(value);
            if (in.get() != VERSION) {
                return null;
            }
            int status = in.getShort() & 0xFFFF;
            long storedAt = in.getLong();
            long expiresAt = in.getLong();
            if (status < 100 || status > 599 || expiresAt < storedAt) {
                return null;
            }
            int h = in.get() & 0xFF;
            if (h > MAX_HEADERS) {
                return null;
            }
            List<Field> headers = new ArrayList<>(h);
            for (int i = 0; i < h; i++) {
                int id = in.get() & 0xFF;
                String v = getValue(in);
                if (id >= REPLAYED.size() || v == null) {
                    return null;
                }
                headers.add(new Field(REPLAYED.get(id), v));
            }
            int n = in.get() & 0xFF;
            if (n > MAX_VARY) {
                return null;
            }
            List<Field> vary = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                byte[] raw = new byte[in.get() & 0xFF];
                in.get(raw);
                String name = new String(raw, US_ASCII);
                if (!isFieldName(name)) {
                    return null;
                }
                vary.add(new Field(name, getValue(in)));
            }
            int bodyLength = in.getInt();
            if (bodyLength != in.remaining()) {
                return null;
            }
            return new CachedResponse(status, List.copyOf(headers), List.copyOf(vary), storedAt, expiresAt,
                    value, in.position(), bodyLength);
        } catch (BufferUnderflowException truncated) {
            return null;
        }
    }

    /**
     * A value, or null for the absent marker; underflows when truncated or holds a control character, so that a
     * damaged value can never split a header line.
     */
    private static String getValue(ByteBuffer in) {
        int len = in.getShort() & 0xFFFF;
        if (len == ABSENT) {
            return null;
        }
        if (len > in.remaining()) {
            throw new BufferUnderflowException();
        }
        byte[] a = in.array();
        for (int i = in.position(); i < in.position() + len; i++) {
            if ((a[i] & 0xFF) < 0x20 && a[i] != '\t' || a[i] == 0x7F) {
                throw new BufferUnderflowException();
            }
        }
        String v = new String(a, in.position(), len, ISO_8859_1);
        in.position(in.position() + len);
        return v;
    }

    /**
     * Whether a stored value is no longer worth keeping at {@code now} (past {@link #retainUntil()}, or a
     * {@link VaryIndex} past its own), or does not decode.
     */
    static boolean isDead(byte[] value, long now) {
        if (VaryIndex.isIndex(value)) {
            VaryIndex index = VaryIndex.decode(value);
            return index == null || index.retainUntil() <= now;
        }
        CachedResponse r = decode(value);
        return r == null || !r.isFresh(now) && r.retainUntil() <= now;
    }

    int bodyLength() {
        return bodyLength;
    }

    /** A view of the stored body; no copy, nothing to free beyond the usual release. */
    ByteBuf body() {
        return Unpooled.wrappedBuffer(array, bodyOffset, bodyLength);
    }

    /**
     * The response to send: replayed headers, {@code Age} (RFC 9111 5.1: seconds since it was generated) and
     * {@code Content-Length}. A HEAD answer has the length of the body it leaves out.
     */
    FullHttpResponse toResponse(HttpVersion version, boolean head, long now) {
        ByteBuf content = head ? Unpooled.EMPTY_BUFFER : body();
        FullHttpResponse response = new DefaultFullHttpResponse(version, HttpResponseStatus.valueOf(status), content);
        HttpHeaders out = response.headers();
        for (Field f : headers) {
            out.add(f.name(), f.value());
        }
        out.set(HttpHeaderNames.AGE, Math.max(0, (now - storedAt) / 1000));
        out.set(HttpHeaderNames.CONTENT_LENGTH, bodyLength);
        return response;
    }

    /** A lower-case token of 1 to {@link #MAX_NAME} characters, as request header names are stored. */
    static boolean isFieldName(String s) {
        if (s.isEmpty() || s.length() > MAX_NAME) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || "!#$%&'*+-.^_`|~".indexOf(c) >= 0)) {
                return false;
            }
        }
        return true;
    }

    private static boolean latin1(String s, int maxLength) {
        if (s == null) {
            return true;
        }
        if (s.length() > maxLength) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c > 0xFF || c < 0x20 && c != '\t' || c == 0x7F) {
                return false;
            }
        }
        return true;
    }
}

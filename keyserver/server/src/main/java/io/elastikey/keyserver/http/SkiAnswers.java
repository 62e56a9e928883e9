package io.elastikey.keyserver.http;

import io.elastikey.protocol.ski.SkiError;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Builds the two shapes of SKI answer: {@code 200 {"output":"<base64>"}} and
 * {@code <status> {"error":"<text>"}}. Error bodies are fixed strings from {@link SkiError},
 * so nothing from a request or a stack trace can reach a client.
 */
final class SkiAnswers {
    private static final byte[] OUTPUT_PREFIX = "{\"output\":\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] OUTPUT_SUFFIX = "\"}".getBytes(StandardCharsets.US_ASCII);
    private static final Base64.Encoder BASE64 = Base64.getEncoder();

    private SkiAnswers() {
    }

    static FullHttpResponse output(ByteBufAllocator alloc, HttpVersion version, byte[] output) {
        byte[] encoded = BASE64.encode(output);
        ByteBuf body = alloc.buffer(OUTPUT_PREFIX.length + encoded.length + OUTPUT_SUFFIX.length);
        body.writeBytes(OUTPUT_PREFIX).writeBytes(encoded).writeBytes(OUTPUT_SUFFIX);
        return json(version, HttpResponseStatus.OK, body);
    }

    static FullHttpResponse error(ByteBufAllocator alloc, HttpVersion version, SkiError error) {
        return error(alloc, version, HttpResponseStatus.valueOf(error.status()), error);
    }

    /** An error whose HTTP status is not the protocol's own (413, 405, 431...), with the protocol's text. */
    static FullHttpResponse error(ByteBufAllocator alloc, HttpVersion version, HttpResponseStatus status,
                                  SkiError error) {
        ByteBuf body = alloc.buffer(error.text().length() + 16);
        body.writeCharSequence("{\"error\":\"" + error.text() + "\"}", StandardCharsets.US_ASCII);
        return json(version, status, body);
    }

    private static FullHttpResponse json(HttpVersion version, HttpResponseStatus status, ByteBuf body) {
        FullHttpResponse response = new DefaultFullHttpResponse(version, status, body);
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
        return response;
    }
}

package io.elastikey.keyserver.http;

import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiJson;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;


/**
 * Builds the two shapes of SKI answer: {@code 200 {"output":"<base64>"}} and
 * {@code <status> {"error":"<text>"}}. Error bodies are fixed strings from {@link SkiError},
 * so nothing from a request or a stack trace can reach a client.
 */
final class SkiAnswers {
    private SkiAnswers() {
    }

    static FullHttpResponse output(ByteBufAllocator alloc, HttpVersion version, byte[] output) {
        ByteBuf body = alloc.buffer(16 + (output.length + 2) / 3 * 4);
        SkiJson.encodeOutput(output, body);
        return json(version, HttpResponseStatus.OK, body);
    }

    static FullHttpResponse error(ByteBufAllocator alloc, HttpVersion version, SkiError error) {
        return error(alloc, version, HttpResponseStatus.valueOf(error.status()), error);
    }

    /** An error whose HTTP status is not the protocol's own (413, 405, 431...), with the protocol's text. */
    static FullHttpResponse error(ByteBufAllocator alloc, HttpVersion version, HttpResponseStatus status,
                                  SkiError error) {
        ByteBuf body = alloc.buffer(error.text().length() + 16);
        SkiJson.encodeError(error, body);
        return json(version, status, body);
    }

    /** {@code 200} with a JSON body the caller built. */
    static FullHttpResponse json(ByteBufAllocator alloc, HttpVersion version, byte[] json) {
        ByteBuf body = alloc.buffer(json.length);
        body.writeBytes(json);
        return json(version, HttpResponseStatus.OK, body);
    }

    private static FullHttpResponse json(HttpVersion version, HttpResponseStatus status, ByteBuf body) {
        FullHttpResponse response = new DefaultFullHttpResponse(version, status, body);
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
        return response;
    }
}

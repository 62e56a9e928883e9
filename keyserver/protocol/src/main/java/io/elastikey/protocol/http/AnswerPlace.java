// AnswerPlace -- where one request's answer goes: its place in an HTTP/1.1 connection's order, or its HTTP/2 stream.
package io.elastikey.protocol.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;

/**
 * Lets a handler answer a request without knowing how its connection carries answers: a {@link ResponseSequencer}
 * slot keeps HTTP/1.1's request order, an HTTP/2 request writes on its own stream. Held from the request's arrival
 * until its answer is ready, so it is the one object per request that both need, not a wrapper around one.
 */
public interface AnswerPlace {
    /** Writes {@code response} there, taking ownership of it. On the connection's event loop. */
    void complete(ChannelHandlerContext ctx, FullHttpResponse response);
}

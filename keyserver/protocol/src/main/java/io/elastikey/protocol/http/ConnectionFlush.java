// ConnectionFlush -- one flush of an HTTP/2 connection for all the answers its streams wrote in one turn of the loop.
package io.elastikey.protocol.http;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.util.AttributeKey;

import java.util.concurrent.RejectedExecutionException;

/**
 * Flushes an answer soon rather than at once when it travels on an HTTP/2 stream. A server's answers are written by
 * tasks that its workers (crypto, origin, cache) queue on the connection's event loop, one per answer; a flush per
 * answer costs a TLS record and a {@code write} system call each. Here the first answer of a turn schedules one flush
 * of the connection after the tasks already queued, and the answers those tasks write leave with it: under load, in
 * one record and one call. An answer alone waits only for the loop's next task, microseconds. HTTP/1.1 connections
 * carry one answer at a time and are flushed at once.
 *
 * <p>Only answers go this way; the HTTP/2 codec's own frames (SETTINGS, GOAWAY, RST_STREAM) are flushed by the codec
 * as always. Confined to the channel's event loop.
 */
public final class ConnectionFlush {
    private static final AttributeKey<Boolean> SCHEDULED = AttributeKey.valueOf(ConnectionFlush.class, "scheduled");

    private ConnectionFlush() {
    }

    private static void flushNow(Channel connection) {
        connection.attr(SCHEDULED).set(null);
        connection.flush();
    }

    /** Flushes what {@code ctx}'s channel wrote: now on HTTP/1.1, with the turn's other answers on an HTTP/2 stream. */
    public static void flush(ChannelHandlerContext ctx) {
        Channel channel = ctx.channel();
        if (!(channel instanceof Http2StreamChannel) || channel.parent() == null) {
            ctx.flush();
            return;
        }
        flushSoon(channel.parent());
    }

    /** Flushes the HTTP/2 {@code connection} with the turn's other answers. On the connection's event loop. */
    public static void flushSoon(Channel connection) {
        if (connection.attr(SCHEDULED).setIfAbsent(Boolean.TRUE) != null) {
            return;
        }
        try {
            connection.eventLoop().execute(() -> flushNow(connection));
        } catch (RejectedExecutionException e) {
            flushNow(connection); // the loop is shutting down: this task is the last chance
        }
    }
}

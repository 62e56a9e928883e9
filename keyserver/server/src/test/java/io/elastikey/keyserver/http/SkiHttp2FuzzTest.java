// SkiHttp2FuzzTest -- coverage-guided fuzzing of the key server's HTTP/2 request path (Jazzer; docs/security.md).
package io.elastikey.keyserver.http;

import static io.netty.handler.codec.http2.Http2CodecUtil.MAX_HEADER_TABLE_SIZE;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import com.code_intelligence.jazzer.junit.FuzzTest;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.DefaultHttp2FrameReader;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.ssl.ApplicationProtocolNames;

/**
 * The bytes a client sends after the TLS handshake, through the pipeline ALPN sets up for HTTP/2 (frame codec with
 * the stream, header and rapid-reset limits, {@link Http2Requests} gathering each stream's request for
 * {@link SkiHttpHandler}). The client connection preface is put in front of the input unless its first byte's top
 * bit is set, so the fuzzer spends its time on frames; the low bits set the read size. Whatever the bytes: no
 * exception leaves the pipeline but Netty's own {@link Http2Exception} for a connection error; what the server
 * writes is a sequence of well-formed frames (read back with Netty's own frame reader and HPACK decoder); each
 * finished response has an SKI status and an SKI JSON body; and a connection the server closes or fails was told
 * why with GOAWAY. Seeds: {@code SkiHttp2FuzzTestInputs/serve/}.
 */
class SkiHttp2FuzzTest {
    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    @FuzzTest
    void serve(byte[] input) throws Http2Exception {
        if (input.length == 0) {
            return;
        }
        int readSize = 1 + (input[0] & 0x7f) * 4;
        ByteBuf stream = Unpooled.buffer();
        if ((input[0] & 0x80) == 0) {
            stream.writeBytes(PREFACE);
        }
        stream.writeBytes(input, 1, input.length - 1);

        EmbeddedChannel channel = SkiHttpFuzzing.channel(ApplicationProtocolNames.HTTP_2);
        ByteBuf written = Unpooled.buffer();
        try {
            Http2Exception connectionError = null;
            while (stream.isReadable() && channel.isOpen() && connectionError == null) {
                ByteBuf read = stream.readRetainedSlice(Math.min(readSize, stream.readableBytes()));
                connectionError = connectionError(() -> channel.writeInbound(read));
                channel.runPendingTasks();
                drain(channel, written);
            }
            if (connectionError == null) {
                connectionError = connectionError(channel::checkException);
            }
            ServerFrames frames = ServerFrames.read(written);
            for (Map.Entry<Integer, FullHttpResponse> response : frames.finished.entrySet()) {
                try {
                    SkiHttp1FuzzTest.assertSkiAnswer(response.getValue());
                } finally {
                    response.getValue().release();
                }
            }
            frames.open.values().forEach(FullHttpResponse::release);
            if (!channel.isOpen() || connectionError != null) {
                assertThat(frames.goAway).as("a connection closed without GOAWAY").isTrue();
            }
        } finally {
            stream.release();
            written.release();
            channel.finishAndReleaseAll();
        }
    }

    /**
     * The HTTP/2 connection error that reached the end of the pipeline, if any. Netty's frame codec answers a peer's
     * protocol error with GOAWAY and then passes the error on; nothing in the key server's parent pipeline takes it
     * (a reported finding: each one is a warning with a stack trace in the log). Any other exception is a failure.
     */
    private static Http2Exception connectionError(Runnable step) {
        try {
            step.run();
            return null;
        } catch (Exception e) {
            if (e instanceof Http2Exception http2) {
                return http2;
            }
            throw new AssertionError("an exception left the HTTP/2 pipeline", e);
        }
    }

    private static void drain(EmbeddedChannel channel, ByteBuf written) {
        for (Object out = channel.readOutbound(); out != null; out = channel.readOutbound()) {
            ByteBuf bytes = (ByteBuf) out;
            written.writeBytes(bytes);
            bytes.release();
        }
    }

    /** The server's frames, read as a client would, with each stream's response gathered. */
    private static final class ServerFrames extends Http2FrameAdapter {
        final Map<Integer, FullHttpResponse> open = new HashMap<>();
        final Map<Integer, FullHttpResponse> finished = new HashMap<>();
        boolean goAway;

        static ServerFrames read(ByteBuf written) throws Http2Exception {
            ServerFrames frames = new ServerFrames();
            EmbeddedChannel reader = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
            try (DefaultHttp2FrameReader frameReader = new DefaultHttp2FrameReader(true)) {
                // The input's SETTINGS may allow the server's HPACK table to grow past the default 4,096 bytes; a
                // client that sent them accepts the table size updates that follow (once a harness finding).
                frameReader.configuration().headersConfiguration().maxHeaderTableSize(MAX_HEADER_TABLE_SIZE);
                ChannelHandlerContext ctx = reader.pipeline().firstContext();
                ByteBuf bytes = written.duplicate();
                while (bytes.isReadable()) {
                    int before = bytes.readableBytes();
                    frameReader.readFrame(ctx, bytes, frames);
                    if (bytes.readableBytes() == before) {
                        throw new AssertionError(before + " bytes the server wrote are not a whole frame");
                    }
                }
            } finally {
                reader.finishAndReleaseAll();
            }
            return frames;
        }

        @Override
        public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding,
                                  boolean endOfStream) {
            onHeadersRead(ctx, streamId, headers, 0, (short) 16, false, padding, endOfStream);
        }

        @Override
        public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int streamDependency,
                                  short weight, boolean exclusive, int padding, boolean endOfStream) {
            assertThat(streamId).isPositive();
            CharSequence status = headers.status();
            assertThat(status).as("a response without :status").isNotNull();
            if (status.length() == 3 && status.charAt(0) == '1' && !endOfStream && !open.containsKey(streamId)) {
                return; // an interim answer (100 Continue) before the response
            }
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                    HttpResponseStatus.valueOf(Integer.parseInt(status.toString())));
            FullHttpResponse earlier = open.put(streamId, response);
            assertThat(earlier).as("two responses on stream " + streamId).isNull();
            if (endOfStream) {
                finished.put(streamId, open.remove(streamId));
            }
        }

        @Override
        public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding,
                              boolean endOfStream) {
            FullHttpResponse response = open.get(streamId);
            assertThat(response).as("data before headers on stream " + streamId).isNotNull();
            response.content().writeBytes(data);
            if (endOfStream) {
                finished.put(streamId, open.remove(streamId));
            }
            return data.readableBytes() + padding;
        }

        @Override
        public void onGoAwayRead(ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debugData) {
            goAway = true;
        }
    }
}

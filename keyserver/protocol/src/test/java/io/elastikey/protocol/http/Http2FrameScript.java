// Http2FrameScript -- a test's side of an HTTP/2 connection to a server pipeline on an EmbeddedChannel, frame by frame.
package io.elastikey.protocol.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2FrameReader;
import io.netty.handler.codec.http2.DefaultHttp2FrameWriter;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2FrameWriter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Frames made by Netty's own frame writer, exactly as a client would send them (malformed ones included: the writer
 * checks nothing a test wants to break), handed to {@code server} in one read each; what the server writes back is
 * read with Netty's frame reader and given as short strings per stream: {@code "headers 200"}, {@code "data TEXT
 * end"}, {@code "rst CODE"}, and {@code "goaway CODE"} under stream 0.
 */
public final class Http2FrameScript implements AutoCloseable {
    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private final EmbeddedChannel server;
    private final EmbeddedChannel client = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
    private final DefaultHttp2FrameWriter writer = new DefaultHttp2FrameWriter();
    /** One reader for the whole connection: the server's header blocks refer to its earlier ones (HPACK). */
    private final DefaultHttp2FrameReader reader = new DefaultHttp2FrameReader(true);
    private final EmbeddedChannel reading = new EmbeddedChannel(new ChannelInboundHandlerAdapter());

    /** Sends the connection preface and empty SETTINGS to {@code server} and reads its SETTINGS and ACK. */
    public Http2FrameScript(EmbeddedChannel server) {
        this.server = server;
        server.writeInbound(Unpooled.wrappedBuffer(PREFACE));
        send((w, ctx) -> w.writeSettings(ctx, new Http2Settings(), ctx.newPromise()));
        received();
    }

    public void headers(int stream, Http2Headers headers, boolean endStream) {
        send((w, ctx) -> w.writeHeaders(ctx, stream, headers, 0, endStream, ctx.newPromise()));
    }

    public void data(int stream, String text, boolean endStream) {
        ByteBuf bytes = Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII);
        send((w, ctx) -> w.writeData(ctx, stream, bytes, 0, endStream, ctx.newPromise()));
    }

    /** Writes the frames {@code frames} makes and hands their bytes to the server in one read. */
    public void send(BiConsumer<Http2FrameWriter, ChannelHandlerContext> frames) {
        ChannelHandlerContext ctx = client.pipeline().firstContext();
        frames.accept(writer, ctx);
        client.flush();
        ByteBuf bytes = Unpooled.buffer();
        for (Object out = client.readOutbound(); out != null; out = client.readOutbound()) {
            bytes.writeBytes((ByteBuf) out);
            ((ByteBuf) out).release();
        }
        server.writeInbound(bytes);
        server.runPendingTasks();
    }

    /** The frames the server wrote since the last call, by stream, as short strings. */
    public Map<Integer, List<String>> received() {
        ByteBuf written = Unpooled.buffer();
        for (Object out = server.readOutbound(); out != null; out = server.readOutbound()) {
            written.writeBytes((ByteBuf) out);
            ((ByteBuf) out).release();
        }
        Map<Integer, List<String>> frames = new LinkedHashMap<>();
        try {
            while (written.isReadable()) {
                reader.readFrame(reading.pipeline().firstContext(), written, new Collector(frames));
            }
        } catch (Http2Exception e) {
            throw new AssertionError("the server wrote a frame that does not parse", e);
        } finally {
            written.release();
        }
        return frames;
    }

    @Override
    public void close() {
        writer.close();
        reader.close();
        reading.finishAndReleaseAll();
        client.finishAndReleaseAll();
    }

    private static final class Collector extends Http2FrameAdapter {
        private final Map<Integer, List<String>> frames;

        Collector(Map<Integer, List<String>> frames) {
            this.frames = frames;
        }

        @Override
        public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding,
                                  boolean endOfStream) {
            add(streamId, "headers " + headers.status() + (endOfStream ? " end" : ""));
        }

        @Override
        public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int dependency,
                                  short weight, boolean exclusive, int padding, boolean endOfStream) {
            onHeadersRead(ctx, streamId, headers, padding, endOfStream);
        }

        @Override
        public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding,
                              boolean endOfStream) {
            add(streamId, "data " + data.toString(StandardCharsets.US_ASCII) + (endOfStream ? " end" : ""));
            return data.readableBytes() + padding;
        }

        @Override
        public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
            add(streamId, "rst " + errorCode);
        }

        @Override
        public void onGoAwayRead(ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debugData) {
            add(0, "goaway " + errorCode);
        }

        private void add(int streamId, String frame) {
            frames.computeIfAbsent(streamId, id -> new ArrayList<>()).add(frame);
        }
    }
}

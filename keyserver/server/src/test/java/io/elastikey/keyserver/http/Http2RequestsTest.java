// Http2RequestsTest -- each HTTP/2 stream's frames make one request; limits, timeouts and resets per stream.
package io.elastikey.keyserver.http;

import io.elastikey.protocol.ski.SkiError;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2FrameReader;
import io.netty.handler.codec.http2.DefaultHttp2FrameWriter;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.ssl.ApplicationProtocolNames;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The key server's HTTP/2 pipeline on an {@link EmbeddedChannel} (as the fuzz targets build it, body limit
 * {@value SkiHttpFuzzing#MAX_BODY_BYTES} bytes, request-read timeout 2 s), fed frames made by Netty's own frame
 * writer and read back with its frame reader. The service behind it answers a request's input reversed, or when the
 * test says so.
 */
class Http2RequestsTest {
    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] INPUT = "sixteen bytes!!!".getBytes(StandardCharsets.US_ASCII);
    private static final String BODY = "{\"protocol\":\"TLS 1.2\",\"method\":\"ECDHE\",\"hash\":\"SHA-256\","
            + "\"spki\":\"9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B\",\"input\":\""
            + Base64.getEncoder().encodeToString(INPUT) + "\"}";
    private static final String OUTPUT = Base64.getEncoder().encodeToString(SkiHttpFuzzing.expectedOutput(INPUT));

    /** The errors the request log was told of, {@code ok} for a success, in order. */
    private final List<String> logged = new ArrayList<>();
    private final List<CompletableFuture<byte[]>> held = new ArrayList<>();
    private boolean holdAnswers;
    private final EmbeddedChannel server = SkiHttpFuzzing.channel(ApplicationProtocolNames.HTTP_2,
            (caller, request, deadline) -> {
                if (holdAnswers) {
                    CompletableFuture<byte[]> answer = new CompletableFuture<>();
                    held.add(answer);
                    return answer;
                }
                return CompletableFuture.completedFuture(SkiHttpFuzzing.expectedOutput(request.input()));
            },
            (caller, method, spki, error, nanos) -> logged.add(error == null ? "ok" : error.name()),
            Duration.ofSeconds(2));
    private final EmbeddedChannel client = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
    private final DefaultHttp2FrameWriter writer = new DefaultHttp2FrameWriter();
    /** One reader for the whole connection: the server's header blocks refer to its earlier ones (HPACK). */
    private final DefaultHttp2FrameReader reader = new DefaultHttp2FrameReader(true);
    private final EmbeddedChannel reading = new EmbeddedChannel(new ChannelInboundHandlerAdapter());

    Http2RequestsTest() {
        ByteBuf preface = Unpooled.wrappedBuffer(PREFACE);
        server.writeInbound(preface);
        send(() -> writer.writeSettings(ctx(), new Http2Settings(), ctx().newPromise()));
        received(); // the server's SETTINGS and its acknowledgement
    }

    @AfterEach
    void close() {
        writer.close();
        reader.close();
        reading.finishAndReleaseAll();
        client.finishAndReleaseAll();
        server.finishAndReleaseAll();
    }

    @Test
    void aBodyInSeveralDataFramesIsOneRequest() throws Http2Exception {
        byte[] body = BODY.getBytes(StandardCharsets.US_ASCII);
        headers(1, requestHeaders(body.length), false);
        data(1, new String(body, 0, 10, StandardCharsets.US_ASCII), false);
        data(1, new String(body, 10, 50, StandardCharsets.US_ASCII), false);
        data(1, new String(body, 60, body.length - 60, StandardCharsets.US_ASCII), true);

        Map<Integer, List<String>> frames = received();
        assertThat(frames.get(1)).containsExactly("headers 200", "data {\"output\":\"" + OUTPUT + "\"} end");
        assertThat(logged).containsExactly("ok");
    }

    @Test
    void aDeclaredBodyOverTheLimitIsAnswered413AsSkiJsonAndAuditedAndTheConnectionGoesOn() throws Http2Exception {
        headers(1, requestHeaders(SkiHttpFuzzing.MAX_BODY_BYTES + 1), false);

        Map<Integer, List<String>> frames = received();
        assertThat(frames.get(1)).containsExactly("headers 413", "data {\"error\":\"malformed request\"} end",
                "rst " + Http2Error.NO_ERROR.code());
        assertThat(logged).containsExactly(SkiError.MALFORMED_REQUEST.name());

        request(3);
        assertThat(received().get(3)).containsExactly("headers 200", "data {\"output\":\"" + OUTPUT + "\"} end");
    }

    @Test
    void dataPastTheLimitWithoutADeclaredLengthIsAnswered413() throws Http2Exception {
        headers(1, requestHeaders(-1), false);
        data(1, "x".repeat(SkiHttpFuzzing.MAX_BODY_BYTES / 2), false);
        data(1, "x".repeat(SkiHttpFuzzing.MAX_BODY_BYTES / 2 + 1), false);

        assertThat(received().get(1)).containsExactly("headers 413", "data {\"error\":\"malformed request\"} end",
                "rst " + Http2Error.NO_ERROR.code());
        assertThat(logged).containsExactly(SkiError.MALFORMED_REQUEST.name());
    }

    @Test
    void expectContinueGetsAnInterim100AndThenTheAnswer() throws Http2Exception {
        Http2Headers headers = requestHeaders(BODY.length()).set("expect", "100-continue");
        headers(1, headers, false);
        assertThat(received().get(1)).containsExactly("headers 100");

        data(1, BODY, true);
        assertThat(received().get(1)).containsExactly("headers 200", "data {\"output\":\"" + OUTPUT + "\"} end");
    }

    @Test
    void aRequestNotWholeWithinTheReadTimeoutIsAnswered408AndItsStreamAloneReset() throws Http2Exception {
        headers(1, requestHeaders(BODY.length()), false);
        data(1, BODY.substring(0, 20), false);
        assertThat(received()).doesNotContainKey(1);

        server.advanceTimeBy(1, TimeUnit.SECONDS);
        request(3); // another stream, whole, is served meanwhile
        assertThat(received().get(3)).containsExactly("headers 200", "data {\"output\":\"" + OUTPUT + "\"} end");

        server.advanceTimeBy(1500, TimeUnit.MILLISECONDS);
        server.runScheduledPendingTasks();
        server.runPendingTasks();
        assertThat(received().get(1)).containsExactly("headers 408", "data {\"error\":\"malformed request\"} end",
                "rst " + Http2Error.NO_ERROR.code());
        assertThat(logged).containsExactly("ok", SkiError.MALFORMED_REQUEST.name());
        assertThat(server.isActive()).isTrue();
    }

    @Test
    void aWholeRequestStartsNoClock() throws Http2Exception {
        request(1);
        received();
        server.advanceTimeBy(10, TimeUnit.SECONDS);
        server.runScheduledPendingTasks();
        assertThat(received()).isEmpty();
        assertThat(logged).containsExactly("ok");
    }

    @Test
    void aStreamTheClientResetsGetsNoAnswerAndTheOthersDo() throws Http2Exception {
        holdAnswers = true;
        request(1);
        request(3);
        assertThat(held).hasSize(2);
        send(() -> writer.writeRstStream(ctx(), 1, Http2Error.CANCEL.code(), ctx().newPromise()));

        held.forEach(answer -> answer.complete(new byte[] {7}));
        server.runPendingTasks();
        Map<Integer, List<String>> frames = received();
        assertThat(frames).doesNotContainKey(1);
        assertThat(frames.get(3)).containsExactly("headers 200", "data {\"output\":\"Bw==\"} end");
    }

    @Test
    void headersThatMakeNoRequestResetTheirStreamAndTheConnectionGoesOn() throws Http2Exception {
        Http2Headers noPath = new DefaultHttp2Headers().method("POST").scheme("https").authority("ks");
        headers(1, noPath, true);
        List<String> first = received().get(1);
        assertThat(first).hasSize(1);
        assertThat(first.get(0)).startsWith("rst ");

        request(3);
        assertThat(received().get(3)).containsExactly("headers 200", "data {\"output\":\"" + OUTPUT + "\"} end");
    }

    /**
     * Netty's codec refuses the headers (a stream error) before this pipeline sees them, and writes no RST_STREAM for
     * a stream it never opened: the client's own timeout ends that one. What matters here is that nothing is served
     * on it and the connection goes on.
     */
    @Test
    void aContentLengthThatIsNoNumberIsNotServedAndTheConnectionGoesOn() throws Http2Exception {
        headers(1, requestHeaders(-1).set("content-length", "12abc"), false);
        data(1, BODY, true);
        assertThat(received().getOrDefault(1, List.of())).noneMatch(frame -> frame.startsWith("headers"));
        assertThat(logged).isEmpty();

        request(3);
        assertThat(received().get(3)).containsExactly("headers 200", "data {\"output\":\"" + OUTPUT + "\"} end");
        assertThat(server.isActive()).isTrue();
    }

    private static Http2Headers requestHeaders(int contentLength) {
        Http2Headers headers = new DefaultHttp2Headers().method("POST").path("/").scheme("https").authority("ks")
                .set("content-type", "application/json");
        if (contentLength >= 0) {
            headers.setInt("content-length", contentLength);
        }
        return headers;
    }

    private void request(int stream) {
        headers(stream, requestHeaders(BODY.length()), false);
        data(stream, BODY, true);
    }

    private void headers(int stream, Http2Headers headers, boolean endStream) {
        send(() -> writer.writeHeaders(ctx(), stream, headers, 0, endStream, ctx().newPromise()));
    }

    private void data(int stream, String text, boolean endStream) {
        ByteBuf bytes = Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII);
        send(() -> writer.writeData(ctx(), stream, bytes, 0, endStream, ctx().newPromise()));
    }

    private ChannelHandlerContext ctx() {
        return client.pipeline().firstContext();
    }

    /** Writes what {@code frame} makes on the client side and hands the bytes to the server in one read. */
    private void send(Runnable frame) {
        frame.run();
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
    private Map<Integer, List<String>> received() {
        ByteBuf written = Unpooled.buffer();
        for (Object out = server.readOutbound(); out != null; out = server.readOutbound()) {
            written.writeBytes((ByteBuf) out);
            ((ByteBuf) out).release();
        }
        Map<Integer, List<String>> frames = new LinkedHashMap<>();
        try {
            while (written.isReadable()) {
                reader.readFrame(reading.pipeline().firstContext(), written, new Http2FrameAdapter() {
                    @Override
                    public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers,
                                              int padding, boolean endOfStream) {
                        add(streamId, "headers " + headers.status() + (endOfStream ? " end" : ""));
                    }

                    @Override
                    public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers,
                                              int dependency, short weight, boolean exclusive, int padding,
                                              boolean endOfStream) {
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
                    public void onGoAwayRead(ChannelHandlerContext ctx, int lastStreamId, long errorCode,
                                             ByteBuf debugData) {
                        add(0, "goaway " + errorCode);
                    }

                    private void add(int streamId, String frame) {
                        frames.computeIfAbsent(streamId, id -> new ArrayList<>()).add(frame);
                    }
                });
            }
        } catch (Http2Exception e) {
            throw new AssertionError("the server wrote a frame that does not parse", e);
        } finally {
            written.release();
        }
        return frames;
    }
}

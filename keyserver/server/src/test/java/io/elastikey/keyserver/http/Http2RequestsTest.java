// Http2RequestsTest -- each HTTP/2 stream's frames make one request; limits, timeouts and resets per stream.
package io.elastikey.keyserver.http;

import io.elastikey.protocol.http.Http2FrameScript;
import io.elastikey.protocol.ski.SkiError;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.ssl.ApplicationProtocolNames;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The key server's HTTP/2 pipeline on an {@link EmbeddedChannel} (as the fuzz targets build it, body limit
 * {@value SkiHttpFuzzing#MAX_BODY_BYTES} bytes, request-read timeout 2 s), fed frames by an {@link Http2FrameScript}. The service behind it answers a request's input reversed, or when the
 * test says so.
 */
class Http2RequestsTest {
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
    private final Http2FrameScript client = new Http2FrameScript(server);

    @AfterEach
    void close() {
        client.close();
        server.finishAndReleaseAll();
    }

    @Test
    void aBodyInSeveralDataFramesIsOneRequest() {
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
    void aDeclaredBodyOverTheLimitIsAnswered413AsSkiJsonAndAuditedAndTheConnectionGoesOn() {
        headers(1, requestHeaders(SkiHttpFuzzing.MAX_BODY_BYTES + 1), false);

        Map<Integer, List<String>> frames = received();
        assertThat(frames.get(1)).containsExactly("headers 413", "data {\"error\":\"malformed request\"} end",
                "rst " + Http2Error.NO_ERROR.code());
        assertThat(logged).containsExactly(SkiError.MALFORMED_REQUEST.name());

        request(3);
        assertThat(received().get(3)).containsExactly("headers 200", "data {\"output\":\"" + OUTPUT + "\"} end");
    }

    @Test
    void dataPastTheLimitWithoutADeclaredLengthIsAnswered413() {
        headers(1, requestHeaders(-1), false);
        data(1, "x".repeat(SkiHttpFuzzing.MAX_BODY_BYTES / 2), false);
        data(1, "x".repeat(SkiHttpFuzzing.MAX_BODY_BYTES / 2 + 1), false);

        assertThat(received().get(1)).containsExactly("headers 413", "data {\"error\":\"malformed request\"} end",
                "rst " + Http2Error.NO_ERROR.code());
        assertThat(logged).containsExactly(SkiError.MALFORMED_REQUEST.name());
    }

    @Test
    void expectContinueGetsAnInterim100AndThenTheAnswer() {
        Http2Headers headers = requestHeaders(BODY.length()).set("expect", "100-continue");
        headers(1, headers, false);
        assertThat(received().get(1)).containsExactly("headers 100");

        data(1, BODY, true);
        assertThat(received().get(1)).containsExactly("headers 200", "data {\"output\":\"" + OUTPUT + "\"} end");
    }

    @Test
    void aRequestNotWholeWithinTheReadTimeoutIsAnswered408AndItsStreamAloneReset() {
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
    void aWholeRequestStartsNoClock() {
        request(1);
        received();
        server.advanceTimeBy(10, TimeUnit.SECONDS);
        server.runScheduledPendingTasks();
        assertThat(received()).isEmpty();
        assertThat(logged).containsExactly("ok");
    }

    @Test
    void aStreamTheClientResetsGetsNoAnswerAndTheOthersDo() {
        holdAnswers = true;
        request(1);
        request(3);
        assertThat(held).hasSize(2);
        client.send((writer, ctx) -> writer.writeRstStream(ctx, 1, Http2Error.CANCEL.code(), ctx.newPromise()));

        held.forEach(answer -> answer.complete(new byte[] {7}));
        server.runPendingTasks();
        Map<Integer, List<String>> frames = received();
        assertThat(frames).doesNotContainKey(1);
        assertThat(frames.get(3)).containsExactly("headers 200", "data {\"output\":\"Bw==\"} end");
    }

    @Test
    void headersThatMakeNoRequestResetTheirStreamWithProtocolErrorAndTheConnectionGoesOn() {
        Http2Headers noPath = new DefaultHttp2Headers().method("POST").scheme("https").authority("ks");
        Http2Headers noScheme = new DefaultHttp2Headers().method("POST").path("/").authority("ks");
        Http2Headers noMethod = new DefaultHttp2Headers().path("/").scheme("https").authority("ks");
        headers(1, noPath, true);
        headers(3, noScheme, true);
        headers(5, noMethod, true);
        Map<Integer, List<String>> frames = received();
        for (int stream : new int[] {1, 3, 5}) {
            assertThat(frames.get(stream)).as("stream %d", stream)
                    .containsExactly("rst " + Http2Error.PROTOCOL_ERROR.code());
        }
        assertThat(logged).as("nothing served").isEmpty();

        request(7);
        assertThat(received().get(7)).containsExactly("headers 200", "data {\"output\":\"" + OUTPUT + "\"} end");
    }

    @Test
    void dataAfterTheEndOfAStreamResetsItWithStreamClosedAndItsAnswerIsDropped() {
        holdAnswers = true;
        request(1);
        data(1, "more", true);
        assertThat(received().get(1)).containsExactly("rst " + Http2Error.STREAM_CLOSED.code());

        held.forEach(answer -> answer.complete(new byte[] {7}));
        server.runPendingTasks();
        assertThat(received()).doesNotContainKey(1);
        assertThat(server.isActive()).isTrue();
    }

    @Test
    void aConnectionErrorIsAnsweredWithGoAwayCarryingItsCode() {
        // Two increments that take the connection's send window past 2^31-1 (RFC 9113, 6.9.1).
        client.send((writer, ctx) -> {
            writer.writeWindowUpdate(ctx, 0, Integer.MAX_VALUE, ctx.newPromise());
            writer.writeWindowUpdate(ctx, 0, Integer.MAX_VALUE, ctx.newPromise());
        });
        assertThat(received().get(0)).containsExactly("goaway " + Http2Error.FLOW_CONTROL_ERROR.code());
        assertThat(server.isActive()).isFalse();
    }

    /**
     * Netty's codec refuses the headers (a stream error) before this pipeline sees them, and writes no RST_STREAM for
     * a stream it never opened: the client's own timeout ends that one. What matters here is that nothing is served
     * on it and the connection goes on.
     */
    @Test
    void aContentLengthThatIsNoNumberIsNotServedAndTheConnectionGoesOn() {
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
        client.headers(stream, headers, endStream);
    }

    private void data(int stream, String text, boolean endStream) {
        client.data(stream, text, endStream);
    }

    private Map<Integer, List<String>> received() {
        return client.received();
    }
}

// SkiHttp1FuzzTest -- coverage-guided fuzzing of the key server's HTTP/1.1 request path (Jazzer; docs/security.md).
package io.elastikey.keyserver.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;

import io.elastikey.protocol.ski.SkiException;
import io.elastikey.protocol.ski.SkiJson;
import io.elastikey.protocol.ski.SkiTransportException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.ssl.ApplicationProtocolNames;

/**
 * The bytes a client sends after the TLS handshake, through the pipeline ALPN sets up for HTTP/1.1 (codec,
 * keep-alive, aggregator with the body limit, {@link SkiHttpHandler}). Whatever they are: no exception leaves the
 * pipeline; everything the server writes is a sequence of well-formed HTTP/1.1 responses of the statuses SKI uses,
 * each with an SKI JSON body ({@code {"output":...}} with 200, {@code {"error":...}} otherwise); and the server never
 * closes a connection without answering (a silent close is what an exception inside the handler ends in). The first
 * byte of an input sets the size of the reads the bytes arrive in. Seeds: {@code SkiHttp1FuzzTestInputs/serve/}.
 */
class SkiHttp1FuzzTest {
    private static final Set<Integer> STATUSES = Set.of(200, 400, 403, 404, 405, 408, 413, 414, 415, 417, 431, 500, 503,
            505);
    /**
     * {@code 100 Continue}, the one answer the aggregator writes itself (to {@code Expect: 100-continue} with a body
     * within the limit): an interim response, bodiless by definition, with the request's final answer after it.
     * {@code 413} and {@code 417} for an {@code Expect} header come from {@link SkiHttpHandler} like every other
     * answer (once a finding: input {@code expect-continue-oversized}, docs/security.md).
     */
    private static final int CONTINUE = 100;

    @FuzzTest
    // No CR or LF in entries: libFuzzer's dictionary format cannot hold them (the seeds carry the line structure).
    @DictionaryEntries({"POST / HTTP/1.1", "GET", "HTTP/1.0", "Content-Length: ", "Transfer-Encoding: chunked",
            "Connection: close", "Connection: keep-alive", "Content-Type: application/json", "Expect: 100-continue",
            "{\"method\":\"RSA\""})
    void serve(byte[] input) {
        if (input.length == 0) {
            return;
        }
        int readSize = 1 + (input[0] & 0xff);
        EmbeddedChannel channel = SkiHttpFuzzing.channel(ApplicationProtocolNames.HTTP_1_1);
        ByteBuf written = Unpooled.buffer();
        try {
            for (int at = 1; at < input.length && channel.isOpen(); at += readSize) {
                channel.writeInbound(Unpooled.wrappedBuffer(input, at, Math.min(readSize, input.length - at)));
                channel.runPendingTasks();
                drain(channel, written);
            }
            channel.checkException();
            List<FullHttpResponse> responses = responses(written);
            try {
                for (FullHttpResponse response : responses) {
                    assertSkiAnswer(response);
                }
                if (!channel.isOpen()) {
                    assertThat(responses).as("a connection closed without an answer").isNotEmpty();
                }
            } finally {
                responses.forEach(FullHttpResponse::release);
            }
        } finally {
            written.release();
            channel.finishAndReleaseAll();
        }
    }

    private static void drain(EmbeddedChannel channel, ByteBuf written) {
        for (Object out = channel.readOutbound(); out != null; out = channel.readOutbound()) {
            ByteBuf bytes = (ByteBuf) out;
            written.writeBytes(bytes);
            bytes.release();
        }
    }

    /** The responses in {@code written}, parsed by Netty's client-side decoder; every byte must belong to one. */
    private static List<FullHttpResponse> responses(ByteBuf written) {
        EmbeddedChannel client = new EmbeddedChannel(new HttpResponseDecoder(), new HttpObjectAggregator(1 << 20));
        List<FullHttpResponse> responses = new ArrayList<>();
        try {
            client.writeInbound(written.retainedDuplicate());
            for (Object in = client.readInbound(); in != null; in = client.readInbound()) {
                FullHttpResponse response = (FullHttpResponse) in;
                responses.add(response);
                assertThat(response.decoderResult().isSuccess()).as("a well-formed response").isTrue();
            }
        } finally {
            client.finishAndReleaseAll();
        }
        return responses;
    }

    static void assertSkiAnswer(FullHttpResponse response) {
        int status = response.status().code();
        if (status == CONTINUE && !response.content().isReadable()) {
            return; // an interim response: see CONTINUE
        }
        assertThat(STATUSES).contains(status);
        byte[] body = new byte[response.content().readableBytes()];
        response.content().getBytes(response.content().readerIndex(), body);
        try {
            byte[] output = SkiJson.decodeAnswer(status, body);
            assertThat(status).isEqualTo(200);
            assertThat(output).isNotEmpty();
        } catch (SkiException e) {
            assertThat(status).isNotEqualTo(200);
            assertThat(e.error().status()).isIn(status, 400);
        } catch (SkiTransportException e) {
            throw new AssertionError("an answer that is not SKI JSON, status " + status, e);
        }
    }
}

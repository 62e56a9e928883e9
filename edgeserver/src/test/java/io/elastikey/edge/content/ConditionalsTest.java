package io.elastikey.edge.content;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import org.junit.jupiter.api.Test;

class ConditionalsTest {
    private static final String LM = "Mon, 02 Nov 2026 10:00:00 GMT";

    private static HttpHeaders headers(String... kv) {
        HttpHeaders h = new DefaultHttpHeaders();
        for (int i = 0; i < kv.length; i += 2) {
            h.add(kv[i], kv[i + 1]);
        }
        return h;
    }

    @Test
    void ifNoneMatchUsesTheWeakComparisonOverTheWholeList() {
        HttpHeaders strong = headers("etag", "\"a\"");
        assertThat(Conditionals.notModified(headers("if-none-match", "\"a\""), strong)).isTrue();
        assertThat(Conditionals.notModified(headers("if-none-match", "W/\"a\""), strong)).isTrue();
        assertThat(Conditionals.notModified(headers("if-none-match", "\"x\", \"a,b\", \"a\""), strong)).isTrue();
        assertThat(Conditionals.notModified(headers("if-none-match", "\"x\"", "if-none-match", "W/\"a\""), strong))
                .isTrue();
        assertThat(Conditionals.notModified(headers("if-none-match", "*"), strong)).isTrue();
        assertThat(Conditionals.notModified(headers("if-none-match", "\"b\""), strong)).isFalse();
        assertThat(Conditionals.notModified(headers("if-none-match", "a"), strong)).as("not a tag").isFalse();
        assertThat(Conditionals.notModified(headers("if-none-match", "\"a\""), headers())).isFalse();
    }

    @Test
    void ifModifiedSinceCountsOnlyWithoutIfNoneMatch() {
        HttpHeaders dated = headers("last-modified", LM, "etag", "\"a\"");
        assertThat(Conditionals.notModified(headers("if-modified-since", LM), dated)).isTrue();
        assertThat(Conditionals.notModified(headers("if-modified-since", "Tue, 03 Nov 2026 10:00:00 GMT"), dated))
                .isTrue();
        assertThat(Conditionals.notModified(headers("if-modified-since", "Sun, 01 Nov 2026 10:00:00 GMT"), dated))
                .isFalse();
        assertThat(Conditionals.notModified(headers("if-modified-since", "garbage"), dated)).isFalse();
        assertThat(Conditionals.notModified(headers("if-modified-since", LM, "if-none-match", "\"b\""), dated))
                .as("RFC 9110 13.1.3: If-None-Match decides").isFalse();
    }

    @Test
    void the304KeepsTheValidatorsAndCachingHeadersButNoBody() {
        FullHttpResponse full = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                Unpooled.copiedBuffer(new byte[] {1, 2, 3}));
        full.headers().add("etag", "\"a\"").add("cache-control", "max-age=60").add("content-type", "text/plain")
                .add("x-cache", "HIT").add("content-length", "3");
        FullHttpResponse out = Conditionals.notModifiedResponse(full);
        assertThat(out.status().code()).isEqualTo(304);
        assertThat(out.content().readableBytes()).isZero();
        assertThat(out.headers().get("etag")).isEqualTo("\"a\"");
        assertThat(out.headers().get("cache-control")).isEqualTo("max-age=60");
        assertThat(out.headers().get("x-cache")).isEqualTo("HIT");
        assertThat(out.headers().contains("content-type")).isFalse();
        assertThat(full.refCnt()).isZero();
    }

    @Test
    void theOriginGetsTheStoredValidatorsNotTheClients() {
        HttpHeaders out = headers("if-none-match", "\"client\"", "if-modified-since", LM);
        Conditionals.forOrigin(out, null);
        assertThat(out.contains("if-none-match")).isFalse();
        assertThat(out.contains("if-modified-since")).isFalse();
        assertThat(Conditionals.shareable(headers("range", "bytes=0-1"))).isFalse();
        assertThat(Conditionals.shareable(headers("if-match", "\"a\""))).isFalse();
        assertThat(Conditionals.shareable(headers("if-none-match", "\"a\""))).isTrue();
    }
}

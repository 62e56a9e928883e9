package io.elastikey.edge.content;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.edge.content.CachedResponse.Field;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(Leaks.class)
class CachedResponseTest {
    private static final List<Field> HEADERS = List.of(
            new Field("content-type", "text/plain; charset=utf-8"),
            new Field("cache-control", "max-age=60"),
            new Field("etag", "\"v1\""));
    private static final List<Field> VARY = List.of(
            new Field("accept-language", "en"),
            new Field("x-absent", null));

    private static byte[] encode(List<Field> headers, List<Field> vary, String body, long storedAt, long expiresAt) {
        ByteBuf b = Unpooled.copiedBuffer(body, UTF_8);
        try {
            int size = CachedResponse.encodedSize(headers, vary, b.readableBytes());
            return CachedResponse.encode(200, headers, vary, storedAt, expiresAt, b, size);
        } finally {
            b.release();
        }
    }

    @Test
    void roundTripKeepsEveryField() {
        byte[] value = encode(HEADERS, VARY, "hello", 1_000, 61_000);
        CachedResponse r = CachedResponse.decode(value);
        assertThat(r).isNotNull();
        assertThat(r.status).isEqualTo(200);
        assertThat(r.headers).isEqualTo(HEADERS);
        assertThat(r.vary).isEqualTo(VARY);
        assertThat(r.storedAt).isEqualTo(1_000);
        assertThat(r.expiresAt).isEqualTo(61_000);
        ByteBuf body = r.body();
        assertThat(body.toString(UTF_8)).isEqualTo("hello");
        body.release();
    }

    @Test
    void responseCarriesAgeLengthAndReplayedHeaders() {
        CachedResponse r = CachedResponse.decode(encode(HEADERS, List.of(), "hello", 1_000, 61_000));
        FullHttpResponse response = r.toResponse(HttpVersion.HTTP_1_1, false, 13_999);
        try {
            assertThat(response.headers().get("age")).isEqualTo("12");
            assertThat(response.headers().get("content-length")).isEqualTo("5");
            assertThat(response.headers().get("etag")).isEqualTo("\"v1\"");
            assertThat(response.content().toString(UTF_8)).isEqualTo("hello");
        } finally {
            response.release();
        }
    }

    @Test
    void headAnswerHasTheLengthButNoBody() {
        CachedResponse r = CachedResponse.decode(encode(HEADERS, List.of(), "hello", 1_000, 61_000));
        FullHttpResponse response = r.toResponse(HttpVersion.HTTP_1_1, true, 1_000);
        assertThat(response.headers().get("content-length")).isEqualTo("5");
        assertThat(response.content().readableBytes()).isZero();
        assertThat(response.headers().get("age")).isEqualTo("0");
        response.release();
    }

    @Test
    void binaryBodySurvives() {
        byte[] bytes = new byte[70_000];
        new Random(1).nextBytes(bytes);
        ByteBuf b = Unpooled.wrappedBuffer(bytes);
        int size = CachedResponse.encodedSize(List.of(), List.of(), bytes.length);
        CachedResponse r = CachedResponse.decode(CachedResponse.encode(200, List.of(), List.of(), 0, 1, b, size));
        b.release();
        assertThat(ByteBufUtil.getBytes(r.body())).isEqualTo(bytes);
    }

    @Test
    void everyTruncationDecodesToNull() {
        byte[] value = encode(HEADERS, VARY, "hello", 1_000, 61_000);
        for (int n = 0; n < value.length; n++) {
            assertThat(CachedResponse.decode(Arrays.copyOf(value, n))).as("prefix of %d bytes", n).isNull();
        }
    }

    @Test
    void aTrailingByteDecodesToNull() {
        byte[] value = encode(HEADERS, VARY, "hello", 1_000, 61_000);
        assertThat(CachedResponse.decode(Arrays.copyOf(value, value.length + 1))).isNull();
    }

    @Test
    void damagedFieldsDecodeToNull() {
        byte[] good = encode(List.of(new Field("etag", "x")), List.of(), "", 1_000, 2_000);
        assertThat(CachedResponse.decode(good)).isNotNull();
        assertThat(CachedResponse.decode(patched(good, 0, 2))).as("version").isNull();
        assertThat(CachedResponse.decode(patched(good, 2, 99))).as("status 99").isNull();
        assertThat(CachedResponse.decode(patched(good, 17, 0))).as("expires before stored").isNull();
        assertThat(CachedResponse.decode(patched(good, 20, 200))).as("unknown header id").isNull();
        assertThat(CachedResponse.decode(patched(good, 23, '\n'))).as("control character in a value").isNull();
        assertThat(CachedResponse.decode(patched(good, 24, 9))).as("vary count past the limit").isNull();
    }

    @Test
    void randomBytesNeverThrow() {
        Random random = new Random(42);
        byte[] good = encode(HEADERS, VARY, "hello", 1_000, 61_000);
        for (int i = 0; i < 20_000; i++) {
            byte[] junk = i % 2 == 0 ? new byte[random.nextInt(64)] : good.clone();
            if (i % 2 == 0) {
                random.nextBytes(junk);
            } else {
                junk[random.nextInt(junk.length)] = (byte) random.nextInt();
            }
            CachedResponse.decode(junk); // null or a valid response, never an exception
        }
    }

    @Test
    void fieldsOutsideTheLayoutAreNotEncodable() {
        assertThat(CachedResponse.encodedSize(List.of(new Field("set-cookie", "a=b")), List.of(), 0)).isEqualTo(-1);
        assertThat(CachedResponse.encodedSize(List.of(new Field("etag", "\u20ac")), List.of(), 0)).isEqualTo(-1);
        assertThat(CachedResponse.encodedSize(List.of(new Field("etag", "x".repeat(70_000))), List.of(), 0))
                .isEqualTo(-1);
        assertThat(CachedResponse.encodedSize(List.of(), List.of(new Field("Accept", "x")), 0)).isEqualTo(-1);
        List<Field> many = new ArrayList<>(Collections.nCopies(33, new Field("etag", "x")));
        assertThat(CachedResponse.encodedSize(many, List.of(), 0)).isEqualTo(-1);
    }

    private static byte[] patched(byte[] value, int offset, int b) {
        byte[] copy = value.clone();
        copy[offset] = (byte) b;
        return copy;
    }
}

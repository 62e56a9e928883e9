// SkiJsonFuzzTest -- coverage-guided fuzzing of the SKI request decoder (Jazzer; docs/security.md, "Fuzzing").
package io.elastikey.protocol.ski;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * The key server decodes every SKI body from an untrusted peer with {@link SkiJson#decodeRequest}. Whatever the bytes,
 * it must either return a request or throw {@link SkiException} of {@link SkiError#MALFORMED_REQUEST} (the server
 * answers that with 400), never another exception. An accepted request must mean the same from a heap buffer, a
 * direct buffer and an array, and must survive {@link SkiJson#encodeRequest} and a second decode unchanged: the edge
 * re-encodes requests it forwards. Seeds: {@code SkiJsonFuzzTestInputs/decodeRequest/} in the test resources.
 */
class SkiJsonFuzzTest {

    @FuzzTest(maxDuration = "2s")
    @DictionaryEntries({"\"protocol\"", "\"method\"", "\"hash\"", "\"scheme\"", "\"spki\"", "\"input\"", "\"TLS 1.2\"",
            "\"TLS 1.3\"", "\"ECDHE\"", "\"RSA\"", "\"RSA-RAW\"", "\"SIGN\"", "\"SHA-256\"", "\"MD5-SHA1\"",
            "\"rsa_pss_rsae_sha256\"", "\"ecdsa_secp256r1_sha256\"", "null", "\"\""})
    void decodeRequest(byte[] body) {
        SkiRequest fromArray = decodeOrNull(() -> SkiJson.decodeRequest(body));
        SkiRequest fromHeap = decodeOrNull(() -> SkiJson.decodeRequest(Unpooled.wrappedBuffer(body)));
        ByteBuf direct = Unpooled.directBuffer(Math.max(1, body.length)).writeBytes(body);
        SkiRequest fromDirect;
        try {
            fromDirect = decodeOrNull(() -> SkiJson.decodeRequest(direct));
        } finally {
            direct.release();
        }
        assertSame(fromHeap, fromArray);
        assertSame(fromDirect, fromArray);
        if (fromArray != null) {
            assertSame(SkiJson.decodeRequest(SkiJson.encodeRequest(fromArray)), fromArray);
        }
    }

    /** The request, or null when the decoder refused the body the one way it may. */
    private static SkiRequest decodeOrNull(java.util.function.Supplier<SkiRequest> decode) {
        try {
            return decode.get();
        } catch (SkiException e) {
            assertThat(e.error()).isEqualTo(SkiError.MALFORMED_REQUEST);
            assertThat(e.getMessage()).isNotBlank();
            return null;
        }
    }

    private static void assertSame(SkiRequest actual, SkiRequest expected) {
        if (expected == null) {
            assertThat(actual).isNull();
            return;
        }
        assertThat(actual).isNotNull();
        assertThat(actual.protocol()).isEqualTo(expected.protocol());
        assertThat(actual.method()).isEqualTo(expected.method());
        assertThat(actual.hash()).isEqualTo(expected.hash());
        assertThat(actual.scheme()).isEqualTo(expected.scheme());
        assertThat(actual.spki()).isEqualTo(expected.spki());
        assertThat(actual.input()).isEqualTo(expected.input());
    }
}

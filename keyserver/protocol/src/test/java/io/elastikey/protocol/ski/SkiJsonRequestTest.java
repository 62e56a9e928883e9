// SkiJsonRequestTest -- every field rule of the SKI request body, the shapes real clients send, and round trips.
package io.elastikey.protocol.ski;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Base64;
import java.util.stream.Stream;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class SkiJsonRequestTest {
    private static final String SHA1_UPPER = "9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B";
    private static final String SHA256_LOWER = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    private static final byte[] INPUT = "sixteen bytes!!!".getBytes(UTF_8);
    private static final String INPUT_B64 = Base64.getEncoder().encodeToString(INPUT);

    @Test
    void decodesAnEcdheRequestShapedAsExistingClientsSendIt() {
        SkiRequest request = decode("{\"protocol\":\"TLS 1.2\",\"method\":\"ECDHE\",\"hash\":\"SHA-256\","
                + "\"spki\":\"" + SHA1_UPPER + "\",\"input\":\"" + INPUT_B64 + "\"}");

        assertThat(request.protocol()).isEqualTo("TLS 1.2");
        assertThat(request.method()).isEqualTo(SkiMethod.ECDHE);
        assertThat(request.hash()).isEqualTo(SkiHash.SHA256);
        assertThat(request.scheme()).isNull();
        assertThat(request.spki()).isEqualTo(SHA1_UPPER);
        assertThat(request.input()).isEqualTo(INPUT);
    }

    @Test
    void decodesAnRsaRequestWithSpacesBetweenTokensAndNoHash() {
        SkiRequest request = decode("{ \"protocol\": \"TLS 1.0\",\n  \"method\": \"RSA\",\n  \"spki\": \""
                + SHA256_LOWER + "\",\n  \"input\": \"" + INPUT_B64 + "\"\n}\n");

        assertThat(request.method()).isEqualTo(SkiMethod.RSA);
        assertThat(request.hash()).isNull();
        assertThat(request.spki()).isEqualTo(SHA256_LOWER);
    }

    @Test
    void encodesFieldsInTheOrderClientsSendThem() {
        SkiRequest request = SkiRequest.ecdhe(SHA1_UPPER, SkiHash.SHA256, new byte[] {0, 1, 2});

        assertThat(new String(SkiJson.encodeRequest(request), UTF_8)).isEqualTo("{\"protocol\":\"TLS 1.2\","
                + "\"method\":\"ECDHE\",\"hash\":\"SHA-256\",\"spki\":\"" + SHA1_UPPER + "\",\"input\":\"AAEC\"}");
    }

    @Test
    void encodingLeavesOutAnAbsentProtocol() {
        SkiRequest request = new SkiRequest(null, SkiMethod.SIGN, null, SignatureScheme.ED25519, SHA256_LOWER, INPUT);

        assertThat(new String(SkiJson.encodeRequest(request), UTF_8)).isEqualTo("{\"method\":\"SIGN\","
                + "\"scheme\":\"ed25519\",\"spki\":\"" + SHA256_LOWER + "\",\"input\":\"" + INPUT_B64 + "\"}");
    }

    @ParameterizedTest
    @MethodSource("everyRequestKind")
    void everyRequestSurvivesARoundTripThroughBytesAndBuffers(SkiRequest request) {
        byte[] json = SkiJson.encodeRequest(request);
        ByteBuf direct = Unpooled.directBuffer();
        SkiJson.encodeRequest(request, direct);
        try {
            assertSame(request, SkiJson.decodeRequest(json));
            assertSame(request, SkiJson.decodeRequest(direct));
            assertSame(request, SkiJson.decodeRequest(Unpooled.wrappedBuffer(json)));
            assertThat(direct.readerIndex()).as("decoding leaves the reader index").isZero();
        } finally {
            direct.release();
        }
    }

    static Stream<SkiRequest> everyRequestKind() {
        Stream<SkiRequest> rsa = Stream.of(SkiRequest.rsa(SHA1_UPPER, INPUT), SkiRequest.rsaRaw(SHA256_LOWER, INPUT));
        Stream<SkiRequest> ecdhe = Arrays.stream(SkiHash.values()).map(h -> SkiRequest.ecdhe(SHA1_UPPER, h, INPUT));
        Stream<SkiRequest> sign = Arrays.stream(SignatureScheme.values())
                .map(s -> SkiRequest.sign(SHA256_LOWER, s, INPUT));
        return Stream.of(rsa, ecdhe, sign).flatMap(s -> s);
    }

    @Test
    void decodesAHeapBufferSliceInPlace() {
        byte[] json = SkiJson.encodeRequest(SkiRequest.rsa(SHA1_UPPER, INPUT));
        byte[] framed = new byte[json.length + 10];
        System.arraycopy(json, 0, framed, 5, json.length);
        ByteBuf slice = Unpooled.wrappedBuffer(framed).setIndex(5, 5 + json.length);

        assertThat(SkiJson.decodeRequest(slice).input()).isEqualTo(INPUT);
    }

    @Test
    void skipsUnknownFieldsOfAnyShape() {
        SkiRequest request = decode("{\"id\":17,\"method\":\"RSA\",\"sni\":\"example.com\",\"extra\":{\"a\":[1,"
                + "{\"b\":null}]},\"flags\":[true,false],\"spki\":\"" + SHA1_UPPER + "\",\"input\":\""
                + INPUT_B64 + "\",\"ratio\":1.5e3}");

        assertThat(request.method()).isEqualTo(SkiMethod.RSA);
    }

    @ParameterizedTest
    @ValueSource(strings = {"TLS 1.0", "TLS 1.1", "TLS 1.2", "TLS 1.3", "DTLS 1.0", "DTLS 1.2"})
    void acceptsEveryProtocolOfTheSpecification(String protocol) {
        assertThat(decode(rsaWith("\"protocol\":\"" + protocol + "\"")).protocol()).isEqualTo(protocol);
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"protocol\":null", "\"protocol\":\"\""})
    void treatsANullOrEmptyProtocolAsAbsent(String field) {
        assertThat(decode(rsaWith(field)).protocol()).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"TLS 1.4\"", "\"tls 1.2\"", "\"TLSv1.2\"", "\"SSL 3.0\"", "12", "[\"TLS 1.2\"]"})
    void refusesAProtocolOutsideTheSpecification(String value) {
        assertMalformed(rsaWith("\"protocol\":" + value), "protocol");
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"rsa\"", "\"ECDSA\"", "\"\"", "null", "1", "{}"})
    void refusesAMethodThatIsNotOneOfTheFour(String value) {
        assertMalformed("{\"method\":" + value + ",\"spki\":\"" + SHA1_UPPER + "\",\"input\":\"" + INPUT_B64 + "\"}",
                "method");
    }

    @Test
    void ecdheNeedsAHash() {
        assertMalformed(request("ECDHE", ""), "hash");
        assertMalformed(request("ECDHE", "\"hash\":null,"), "hash");
    }

    @Test
    void signNeedsAScheme() {
        assertMalformed(request("SIGN", "\"hash\":\"SHA-256\","), "scheme");
    }

    @Test
    void acceptsTheHashNamesClientsSendIncludingSha1WithAHyphen() {
        assertThat(decode(request("ECDHE", "\"hash\":\"SHA1\",")).hash()).isEqualTo(SkiHash.SHA1);
        assertThat(decode(request("ECDHE", "\"hash\":\"SHA-1\",")).hash()).isEqualTo(SkiHash.SHA1);
        assertThat(decode(request("ECDHE", "\"hash\":\"MD5-SHA1\",")).hash()).isEqualTo(SkiHash.MD5_SHA1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"sha-256\"", "\"SHA256\"", "\"SHA-3\"", "256"})
    void refusesAnUnknownHash(String value) {
        assertMalformed(request("ECDHE", "\"hash\":" + value + ","), "hash");
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"ED25519\"", "\"rsa_pss_sha256\"", "\"ecdsa_secp256r1\"", "1031"})
    void refusesAnUnknownScheme(String value) {
        assertMalformed(request("SIGN", "\"scheme\":" + value + ","), "scheme");
    }

    @Test
    void keepsOnlyTheParameterItsMethodUses() {
        String both = "\"hash\":\"SHA-384\",\"scheme\":\"rsa_pss_rsae_sha256\",";

        SkiRequest rsa = decode(request("RSA", both));
        SkiRequest ecdhe = decode(request("ECDHE", both));
        SkiRequest sign = decode(request("SIGN", both));

        assertThat(rsa.hash()).isNull();
        assertThat(rsa.scheme()).isNull();
        assertThat(ecdhe.hash()).isEqualTo(SkiHash.SHA384);
        assertThat(ecdhe.scheme()).isNull();
        assertThat(sign.hash()).isNull();
        assertThat(sign.scheme()).isEqualTo(SignatureScheme.RSA_PSS_RSAE_SHA256);
    }

    @Test
    void rsaMethodsNeedNeitherHashNorScheme() {
        assertThat(decode(request("RSA", "")).method()).isEqualTo(SkiMethod.RSA);
        assertThat(decode(request("RSA-RAW", "\"hash\":\"\",\"scheme\":null,")).method())
                .isEqualTo(SkiMethod.RSA_RAW);
    }

    @ParameterizedTest
    @ValueSource(strings = {"9f86d081884C7D659a2feaa0c55ad015A3BF4F1B", SHA256_LOWER,
            "9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08"})
    void acceptsSpkiAs40Or64HexDigitsOfEitherCase(String spki) {
        assertThat(decode(rsaWithSpki("\"" + spki + "\"")).spki()).isEqualTo(spki);
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"9F86D081884C7D659A2FEAA0C55AD015A3BF4F1\"",
            "\"9F86D081884C7D659A2FEAA0C55AD015A3BF4F1BB\"",
            "\"9G86D081884C7D659A2FEAA0C55AD015A3BF4F1B\"", "\"9F:86:D0:81:88:4C:7D:65:9A:2F:EA:A0:C5:5A:D0:15\"",
            "\"\"", "null", "40", "\"\uff19F86D081884C7D659A2FEAA0C55AD015A3BF4F1B\""})
    void refusesSpkiThatIsNotHexOfASupportedLength(String value) {
        assertMalformed(rsaWithSpki(value), "spki");
    }

    @ParameterizedTest
    @ValueSource(strings = {"YWJjZA==", "YWJjZA", "YWJjZGU=", "YWJjZGU"})
    void acceptsBase64WithOrWithoutPadding(String base64) {
        assertThat(decode(rsaWithInput("\"" + base64 + "\"")).input()).startsWith("abcd".getBytes(UTF_8));
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"YWJjZA=\"", "\"YWJjZ\"", "\"YW Jj\"", "\"YWJj\\nZA==\"", "\"-_-_\"", "\"YWJ*\"",
            "\"\"", "\"====\"", "\"YQ==YQ==\"", "\"\u00e9abc\"", "null", "[]"})
    void refusesInputThatIsNotStandardBase64(String value) {
        assertMalformed(rsaWithInput(value), "input");
    }

    @Test
    void refusesMissingRequiredFields() {
        assertMalformed("{\"spki\":\"" + SHA1_UPPER + "\",\"input\":\"" + INPUT_B64 + "\"}", "method");
        assertMalformed("{\"method\":\"RSA\",\"input\":\"" + INPUT_B64 + "\"}", "spki");
        assertMalformed("{\"method\":\"RSA\",\"spki\":\"" + SHA1_UPPER + "\"}", "input");
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"method\":\"RSA\"", "\"spki\":\"" + SHA1_UPPER + "\"", "\"input\":\"AAAA\"",
            "\"protocol\":\"TLS 1.2\"", "\"protocol\":null", "\"hash\":\"SHA1\",\"hash\":\"SHA1\"",
            "\"scheme\":\"ed25519\",\"scheme\":null"})
    void refusesAKnownFieldThatAppearsTwice(String repeated) {
        assertMalformed("{" + repeated + "," + decodeable().substring(1), "twice");
    }

    @Test
    void refusesAnUnknownFieldThatAppearsTwice() {
        assertMalformed(rsaWith("\"id\":1,\"id\":2"), "twice");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   ", "[]", "[{}]", "\"RSA\"", "42", "null", "true"})
    void refusesABodyThatIsNotAnObject(String body) {
        assertMalformed(body, "");
    }

    @ParameterizedTest
    @ValueSource(strings = {" x", "{}", " {\"method\":\"RSA\"}", "]", "\u0000"})
    void refusesDataAfterTheObject(String trailer) {
        assertMalformed(decodeable() + trailer, "");
    }

    @Test
    void acceptsWhitespaceAfterTheObject() {
        assertThat(decode(decodeable() + " \r\n\t").method()).isEqualTo(SkiMethod.RSA);
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"method\":\"RSA\",", "{\"method\":\"RSA\"", "{\"method\":'RSA'}",
            "{method:\"RSA\"}", "{\"method\":\"RSA\",}", "{/* c */\"method\":\"RSA\"}", "{\"a\":01}", "{\"a\":NaN}"})
    void refusesInvalidJson(String body) {
        assertMalformed(body, "");
    }

    @Test
    void acceptsUnknownFieldsNestedUpToTheLimit() {
        assertThat(decode(rsaWith("\"deep\":" + nested(SkiJson.MAX_NESTING_DEPTH - 1))).method())
                .isEqualTo(SkiMethod.RSA);
    }

    @Test
    void refusesNestingBeyondTheLimit() {
        assertMalformed(rsaWith("\"deep\":" + nested(SkiJson.MAX_NESTING_DEPTH)), "nesting");
        assertMalformed(rsaWith("\"deep\":" + nested(100_000)), "nesting");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"method\":\"RSA\",\"spki\":\"" + SHA1_UPPER + "\",\"input\":\"SECRETSECRET!!\"}",
        "{\"method\":\"SECRETSECRET\",\"spki\":\"" + SHA1_UPPER + "\",\"input\":\"AAAA\"}",
        "{\"method\":\"RSA\",\"spki\":\"SECRETSECRETSECRETSECRETSECRETSECRETSECR\",\"input\":\"AAAA\"}",
        "{\"method\":\"RSA\",\"input\":\"AAAA\",SECRETSECRET}",
        "{\"method\":\"RSA\",\"input\":\"SECRETSECRET",
        "{\"protocol\":\"SECRETSECRET\",\"method\":\"RSA\"}",
        "{\"method\":\"RSA\"} SECRETSECRET"})
    void reasonsNeverQuoteTheRequest(String body) {
        assertThatThrownBy(() -> decode(body))
                .isInstanceOfSatisfying(SkiException.class, e -> {
                    assertThat(e.error()).isEqualTo(SkiError.MALFORMED_REQUEST);
                    assertThat(e.getMessage()).doesNotContain("SECRET").doesNotContain("ECRE");
                    assertThat(e.getCause()).isNull();
                });
    }

    @ParameterizedTest
    @ValueSource(strings = {"00010000", "00000100", "0000feff", "fffe0000"})
    void refusesABodyWhoseFirstBytesNameAByteOrderJacksonCannotReadAsMalformed(String firstBytes) {
        // Found by fuzzing (SkiJsonFuzzTestInputs/decodeRequest/ucs4-byte-order-3412): 00 01 00 00 is UCS-4 in
        // byte order 3412, which Jackson refuses while creating the parser, before any JSON error mapping.
        byte[] body = java.util.HexFormat.of().parseHex(firstBytes + "7b7d");
        for (Runnable decode : new Runnable[] {() -> SkiJson.decodeRequest(body),
                () -> SkiJson.decodeRequest(Unpooled.wrappedBuffer(body)),
                () -> SkiJson.decodeRequest(Unpooled.directBuffer().writeBytes(body))}) {
            assertThatThrownBy(decode::run)
                    .isInstanceOfSatisfying(SkiException.class,
                            e -> assertThat(e.error()).isEqualTo(SkiError.MALFORMED_REQUEST));
        }
    }

    private static String nested(int depth) {
        return "[".repeat(depth) + "]".repeat(depth);
    }

    private static String decodeable() {
        return "{\"protocol\":\"TLS 1.2\",\"method\":\"RSA\",\"spki\":\"" + SHA1_UPPER + "\",\"input\":\""
                + INPUT_B64 + "\"}";
    }

    private static String request(String method, String parameters) {
        return "{\"method\":\"" + method + "\"," + parameters + "\"spki\":\"" + SHA1_UPPER + "\",\"input\":\""
                + INPUT_B64 + "\"}";
    }

    private static String rsaWith(String field) {
        return "{" + field + ",\"method\":\"RSA\",\"spki\":\"" + SHA1_UPPER + "\",\"input\":\"" + INPUT_B64 + "\"}";
    }

    private static String rsaWithSpki(String value) {
        return "{\"method\":\"RSA\",\"spki\":" + value + ",\"input\":\"" + INPUT_B64 + "\"}";
    }

    private static String rsaWithInput(String value) {
        return "{\"method\":\"RSA\",\"spki\":\"" + SHA1_UPPER + "\",\"input\":" + value + "}";
    }

    private static SkiRequest decode(String json) {
        return SkiJson.decodeRequest(json.getBytes(UTF_8));
    }

    private static void assertMalformed(String json, String reasonMentions) {
        assertThatThrownBy(() -> decode(json))
                .isInstanceOfSatisfying(SkiException.class,
                        e -> assertThat(e.error()).isEqualTo(SkiError.MALFORMED_REQUEST))
                .hasMessageContaining(reasonMentions);
    }

    private static void assertSame(SkiRequest expected, SkiRequest actual) {
        assertThat(actual).usingRecursiveComparison().isEqualTo(expected);
    }
}

package io.elastikey.keyserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.elastikey.keyserver.KeyServerFixture.TestKey;
import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.protocol.pki.KeyType;

import java.math.BigInteger;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PSSParameterSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import javax.crypto.Cipher;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every method, hash, scheme and key type through a real key server over mutual TLS, on HTTP/1.1
 * and HTTP/2, with requests shaped as existing SKI clients send them. Every signature is
 * verified with the public key by the JDK's providers; every decryption is a round trip.
 */
class SkiEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final List<KeyType> TYPES = List.of(KeyType.values());

    @TempDir
    static Path dir;
    private static KeyServerFixture fixture;
    private static final Map<KeyType, TestKey> KEYS = new EnumMap<>(KeyType.class);
    private static final Map<HttpClient.Version, HttpClient> CLIENTS = new EnumMap<>(HttpClient.Version.class);

    @BeforeAll
    static void start() throws Exception {
        fixture = KeyServerFixture.create(dir, Map.of());
        for (TestKey key : fixture.addKeys(TYPES, Set.of("test"))) {
            KEYS.put(key.type(), key);
        }
        fixture.start();
        for (HttpClient.Version version : HttpClient.Version.values()) {
            CLIENTS.put(version, fixture.client(version));
        }
    }

    @AfterAll
    static void stop() {
        fixture.close();
    }

    static Stream<Arguments> ecdheCases() {
        List<Arguments> cases = new ArrayList<>();
        for (HttpClient.Version version : HttpClient.Version.values()) {
            for (KeyType type : TYPES) {
                for (String hash : List.of("SHA1", "SHA-224", "SHA-256", "SHA-384", "SHA-512", "MD5-SHA1")) {
                    cases.add(Arguments.of(version, type, hash));
                }
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} {1} ECDHE {2}")
    @MethodSource("ecdheCases")
    void ecdheSignaturesVerifyWithThePublicKey(HttpClient.Version version, KeyType type, String hash)
            throws Exception {
        TestKey key = KEYS.get(type);
        byte[] params = randomBytes(100);
        HttpResponse<String> response = fixture.post(CLIENTS.get(version), """
                {"protocol":"TLS 1.2","method":"ECDHE","hash":"%s","spki":"%s","input":"%s"}"""
                .formatted(hash, certificateSha1Upper(key), base64(params)));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(response.version()).isEqualTo(version);
        byte[] signature = output(response);
        assertThat(verifyEcdhe(key, hash, params, signature)).as("signature verifies").isTrue();
    }

    static Stream<Arguments> signCases() {
        Map<KeyType, List<String>> schemes = Map.of(
                KeyType.RSA_2048, List.of("rsa_pkcs1_sha256", "rsa_pkcs1_sha384", "rsa_pkcs1_sha512",
                        "rsa_pss_rsae_sha256", "rsa_pss_rsae_sha384", "rsa_pss_rsae_sha512"),
                KeyType.RSA_3072, List.of("rsa_pss_rsae_sha256", "rsa_pkcs1_sha1"),
                KeyType.RSA_4096, List.of("rsa_pss_rsae_sha512", "rsa_pkcs1_sha256"),
                KeyType.EC_P256, List.of("ecdsa_secp256r1_sha256"),
                KeyType.EC_P384, List.of("ecdsa_secp384r1_sha384"),
                KeyType.ED25519, List.of("ed25519"));
        List<Arguments> cases = new ArrayList<>();
        for (HttpClient.Version version : HttpClient.Version.values()) {
            schemes.forEach((type, names) -> names.forEach(name -> cases.add(Arguments.of(version, type, name))));
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} {1} SIGN {2}")
    @MethodSource("signCases")
    void tls13SignaturesVerifyWithThePublicKey(HttpClient.Version version, KeyType type, String scheme)
            throws Exception {
        TestKey key = KEYS.get(type);
        byte[] content = randomBytes(130);
        HttpResponse<String> response = fixture.post(CLIENTS.get(version), """
                {"protocol":"TLS 1.3","method":"SIGN","scheme":"%s","spki":"%s","input":"%s"}"""
                .formatted(scheme, KeyIds.keyId(key.pair().getPublic()), base64(content)));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        Signature verifier = jdkVerifier(scheme);
        verifier.initVerify(key.pair().getPublic());
        verifier.update(content);
        assertThat(verifier.verify(output(response))).isTrue();
    }

    static Stream<Arguments> rsaCases() {
        return Stream.of(HttpClient.Version.values()).flatMap(v -> Stream.of(KeyType.RSA_2048, KeyType.RSA_3072,
                KeyType.RSA_4096).map(t -> Arguments.of(v, t)));
    }

    @ParameterizedTest(name = "{0} {1} RSA")
    @MethodSource("rsaCases")
    void rsaDecryptionIsARoundTrip(HttpClient.Version version, KeyType type) throws Exception {
        TestKey key = KEYS.get(type);
        byte[] premaster = randomBytes(48);
        premaster[0] = 3;
        premaster[1] = 3;
        Cipher cipher = Cipher.getInstance("RSA/ECB/PKCS1Padding", "SunJCE");
        cipher.init(Cipher.ENCRYPT_MODE, key.pair().getPublic());
        HttpResponse<String> response = fixture.post(CLIENTS.get(version), """
                {"protocol":"TLS 1.2","method":"RSA","spki":"%s","input":"%s"}"""
                .formatted(HexFormat.of().formatHex(KeyIds.keylessSki(key.pair().getPublic())),
                        base64(cipher.doFinal(premaster))));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(output(response)).isEqualTo(premaster);
    }

    @ParameterizedTest(name = "{0} {1} RSA-RAW")
    @MethodSource("rsaCases")
    void rawRsaIsTheTextbookDecryption(HttpClient.Version version, KeyType type) throws Exception {
        TestKey key = KEYS.get(type);
        RSAPublicKey publicKey = (RSAPublicKey) key.pair().getPublic();
        int length = (publicKey.getModulus().bitLength() + 7) / 8;
        byte[] block = new BigInteger(publicKey.getModulus().bitLength() - 1, RANDOM).toByteArray();
        byte[] input = new byte[length];
        System.arraycopy(block, 0, input, length - block.length, block.length);
        HttpResponse<String> response = fixture.post(CLIENTS.get(version), """
                {"protocol":"TLS 1.2","method":"RSA-RAW","spki":"%s","input":"%s"}"""
                .formatted(HexFormat.of().formatHex(KeyIds.modulusDigest(publicKey)), base64(input)));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        RSAPrivateCrtKey privateKey = (RSAPrivateCrtKey) key.pair().getPrivate();
        BigInteger expected = new BigInteger(1, input).modPow(privateKey.getPrivateExponent(), publicKey.getModulus());
        byte[] answer = output(response);
        assertThat(answer).hasSize(length);
        assertThat(new BigInteger(1, answer)).isEqualTo(expected);
    }

    static boolean verifyEcdhe(TestKey key, String hash, byte[] data, byte[] signature) throws Exception {
        String algorithm = key.pair().getPublic().getAlgorithm();
        if (algorithm.equals("EdDSA") || algorithm.equals("Ed25519")) {
            Signature verifier = Signature.getInstance("Ed25519");
            verifier.initVerify(key.pair().getPublic());
            verifier.update(data);
            return verifier.verify(signature);
        }
        boolean rsa = algorithm.equals("RSA");
        if (hash.equals("MD5-SHA1")) {
            byte[] md5sha1 = concat(MessageDigest.getInstance("MD5").digest(data),
                    MessageDigest.getInstance("SHA-1").digest(data));
            Signature verifier = Signature.getInstance(rsa ? "NONEwithRSA" : "NONEwithECDSA");
            verifier.initVerify(key.pair().getPublic());
            verifier.update(md5sha1);
            return verifier.verify(signature);
        }
        String digest = hash.replace("-", "");
        Signature verifier = Signature.getInstance(digest + (rsa ? "withRSA" : "withECDSA"));
        verifier.initVerify(key.pair().getPublic());
        verifier.update(data);
        return verifier.verify(signature);
    }

    private static Signature jdkVerifier(String scheme) throws Exception {
        if (scheme.equals("ed25519")) {
            return Signature.getInstance("Ed25519");
        }
        String hash = scheme.substring(scheme.lastIndexOf('_') + 1).toUpperCase(Locale.ROOT);
        if (scheme.startsWith("rsa_pss")) {
            String name = "SHA-" + hash.substring(3);
            Signature pss = Signature.getInstance("RSASSA-PSS");
            pss.setParameter(new PSSParameterSpec(name, "MGF1", new MGF1ParameterSpec(name),
                    Integer.parseInt(hash.substring(3)) / 8, 1));
            return pss;
        }
        return Signature.getInstance(hash + (scheme.startsWith("rsa") ? "withRSA" : "withECDSA"));
    }

    static String certificateSha1Upper(TestKey key) throws Exception {
        return HexFormat.of().withUpperCase().formatHex(KeyIds.certificateSha1(key.certificate()));
    }

    static byte[] output(HttpResponse<String> response) throws Exception {
        JsonNode body = JSON.readTree(response.body());
        assertThat(body.has("output")).as(response.body()).isTrue();
        return Base64.getDecoder().decode(body.get("output").asText());
    }

    static String base64(byte[] bytes) {
        return Base64.getEncoder().encodeToString(bytes);
    }

    static byte[] randomBytes(int n) {
        byte[] bytes = new byte[n];
        RANDOM.nextBytes(bytes);
        return bytes;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }
}

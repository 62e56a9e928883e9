package io.elastikey.keyserver.crypto;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.keyserver.keys.LoadedKey;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.ski.SkiHash;
import io.elastikey.protocol.ski.SkiRequest;

import java.nio.charset.StandardCharsets;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code ECDHE} for every key type and hash under both providers, each signature verified by the
 * JDK with the public key. The expected JCA algorithms are spelled out here, not taken from the
 * code under test.
 */
class EcdheSignatureTest {
    /** What a TLS 1.2 ServerKeyExchange signs: client random, server random, the ECDH parameters. */
    private static final byte[] PARAMS = ("client random 32 bytes.........server random 32 bytes........."
            + "\u0003\u0000\u0017\u0041 an uncompressed P-256 point would go here")
            .getBytes(StandardCharsets.ISO_8859_1);

    static List<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        for (TestProviders provider : TestProviders.values()) {
            for (KeyType type : KeyType.values()) {
                for (SkiHash hash : SkiHash.values()) {
                    cases.add(Arguments.of(provider, type, hash));
                }
            }
        }
        return cases;
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("cases")
    void signatureVerifiesWithThePublicKey(TestProviders providers, KeyType type, SkiHash hash) throws Exception {
        CryptoOperations operations = new CryptoOperations(providers.get(), new byte[32]);
        LoadedKey key = TestKeys.loaded(operations.provider(), type);

        byte[] signature = operations.perform(key, SkiRequest.ecdhe(key.keyId(), hash, PARAMS));

        assertThat(verify(type, hash, TestKeys.publicKey(key), signature)).isTrue();
    }

    private static boolean verify(KeyType type, SkiHash hash, PublicKey publicKey, byte[] signature) throws Exception {
        switch (type.keyAlgorithm()) {
            case "RSA":
                assertThat(signature).hasSize(JdkCrypto.modulusLength(publicKey));
                return hash == SkiHash.MD5_SHA1
                        ? Arrays.equals(JdkCrypto.rawPublic(publicKey, signature), type1Block(publicKey))
                        : JdkCrypto.verify(jdkHashName(hash) + "withRSA", publicKey, PARAMS, signature);
            case "EC":
                return hash == SkiHash.MD5_SHA1
                        ? JdkCrypto.verify("NONEwithECDSA", publicKey, JdkCrypto.md5Sha1(PARAMS), signature)
                        : JdkCrypto.verify(jdkHashName(hash) + "withECDSA", publicKey, PARAMS, signature);
            default: // Ed25519 signs the message itself, whatever hash was asked for
                return JdkCrypto.verify("Ed25519", publicKey, PARAMS, signature);
        }
    }

    /** {@code 00 01 FF..FF 00 MD5||SHA-1}: what the signature of a TLS 1.0/1.1 RSA signature opens to. */
    private static byte[] type1Block(PublicKey publicKey) throws Exception {
        int k = JdkCrypto.modulusLength(publicKey);
        byte[] block = new byte[k];
        block[1] = 1;
        Arrays.fill(block, 2, k - 37, (byte) 0xFF);
        System.arraycopy(JdkCrypto.md5Sha1(PARAMS), 0, block, k - 36, 36);
        return block;
    }

    private static String jdkHashName(SkiHash hash) {
        return switch (hash) {
            case SHA1 -> "SHA1";
            case SHA224 -> "SHA224";
            case SHA256 -> "SHA256";
            case SHA384 -> "SHA384";
            case SHA512 -> "SHA512";
            case MD5_SHA1 -> throw new AssertionError("no JCA name");
        };
    }
}

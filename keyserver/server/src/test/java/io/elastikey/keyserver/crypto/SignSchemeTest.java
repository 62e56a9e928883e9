package io.elastikey.keyserver.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.keyserver.keys.LoadedKey;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.ski.SignatureScheme;
import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiException;
import io.elastikey.protocol.ski.SkiRequest;

import java.nio.charset.StandardCharsets;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code SIGN} with every TLS 1.3 scheme against every key type under both providers: a scheme
 * that fits the key gives a signature the JDK verifies; one that does not is a malformed request.
 */
class SignSchemeTest {
    /** A TLS 1.3 CertificateVerify input: 64 spaces, the context string, a zero, the transcript hash. */
    private static final byte[] CONTENT = (" ".repeat(64) + "TLS 1.3, server CertificateVerify\0"
            + "0123456789abcdef0123456789abcdef").getBytes(StandardCharsets.US_ASCII);

    private static final Set<KeyType> RSA = Set.of(KeyType.RSA_2048, KeyType.RSA_3072, KeyType.RSA_4096);
    private static final Set<KeyType> EC = Set.of(KeyType.EC_P256, KeyType.EC_P384);

    static List<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        for (TestProviders provider : TestProviders.values()) {
            for (KeyType type : KeyType.values()) {
                for (SignatureScheme scheme : SignatureScheme.values()) {
                    cases.add(Arguments.of(provider, type, scheme));
                }
            }
        }
        return cases;
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("cases")
    void fittingSchemesSignAndOthersAreMalformed(TestProviders providers, KeyType type, SignatureScheme scheme)
            throws Exception {
        CryptoOperations operations = new CryptoOperations(providers.get(), new byte[32]);
        LoadedKey key = TestKeys.loaded(operations.provider(), type);
        SkiRequest request = SkiRequest.sign(key.keyId(), scheme, CONTENT);

        Verification expected = expectation(type, scheme);
        if (expected == null) {
            assertThatThrownBy(() -> operations.perform(key, request))
                    .isInstanceOfSatisfying(SkiException.class,
                            e -> assertThat(e.error()).isEqualTo(SkiError.MALFORMED_REQUEST));
            return;
        }
        byte[] signature = operations.perform(key, request);
        assertThat(expected.verify(TestKeys.publicKey(key), signature)).isTrue();
    }

    private record Verification(String algorithm, String pssHash) {
        boolean verify(PublicKey key, byte[] signature) throws Exception {
            return JdkCrypto.verify(algorithm, pssHash == null ? null : JdkCrypto.pss(pssHash), key, CONTENT,
                    signature);
        }
    }

    /** How the JDK verifies {@code scheme} with a key of {@code type}, or null when they do not fit. */
    private static Verification expectation(KeyType type, SignatureScheme scheme) {
        return switch (scheme) {
            case RSA_PKCS1_SHA1 -> RSA.contains(type) ? new Verification("SHA1withRSA", null) : null;
            case RSA_PKCS1_SHA256 -> RSA.contains(type) ? new Verification("SHA256withRSA", null) : null;
            case RSA_PKCS1_SHA384 -> RSA.contains(type) ? new Verification("SHA384withRSA", null) : null;
            case RSA_PKCS1_SHA512 -> RSA.contains(type) ? new Verification("SHA512withRSA", null) : null;
            case RSA_PSS_RSAE_SHA256 -> RSA.contains(type) ? new Verification("RSASSA-PSS", "SHA-256") : null;
            case RSA_PSS_RSAE_SHA384 -> RSA.contains(type) ? new Verification("RSASSA-PSS", "SHA-384") : null;
            case RSA_PSS_RSAE_SHA512 -> RSA.contains(type) ? new Verification("RSASSA-PSS", "SHA-512") : null;
            case ECDSA_SHA1 -> EC.contains(type) ? new Verification("SHA1withECDSA", null) : null;
            case ECDSA_SECP256R1_SHA256 -> type == KeyType.EC_P256 ? new Verification("SHA256withECDSA", null) : null;
            case ECDSA_SECP384R1_SHA384 -> type == KeyType.EC_P384 ? new Verification("SHA384withECDSA", null) : null;
            case ED25519 -> type == KeyType.ED25519 ? new Verification("Ed25519", null) : null;
            case ECDSA_SECP521R1_SHA512, RSA_PSS_PSS_SHA256, RSA_PSS_PSS_SHA384, RSA_PSS_PSS_SHA512 -> null;
        };
    }

    @ParameterizedTest
    @EnumSource(TestProviders.class)
    void oneThreadsCachedSignaturesServeKeysInTurn(TestProviders providers) throws Exception {
        CryptoOperations operations = new CryptoOperations(providers.get(), new byte[32]);
        for (int round = 0; round < 2; round++) {
            for (int index = 0; index < 2; index++) {
                for (KeyType type : List.of(KeyType.RSA_2048, KeyType.EC_P256, KeyType.ED25519)) {
                    LoadedKey key = TestKeys.loaded(operations.provider(), type, index);
                    SignatureScheme scheme = type == KeyType.RSA_2048 ? SignatureScheme.RSA_PSS_RSAE_SHA256
                            : type == KeyType.EC_P256 ? SignatureScheme.ECDSA_SECP256R1_SHA256
                            : SignatureScheme.ED25519;
                    byte[] signature = operations.perform(key, SkiRequest.sign(key.keyId(), scheme, CONTENT));
                    assertThat(expectation(type, scheme).verify(TestKeys.publicKey(key), signature))
                            .as("%s key %d", type, index).isTrue();
                }
            }
        }
    }
}

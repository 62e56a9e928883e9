// AnswerVerifierTest -- right answers verify, wrong ones do not, for every method and the key types that serve it.
package io.elastikey.perf.ski;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.GeneralSecurityException;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import io.elastikey.perf.ski.SkiKeySet.Key;
import io.elastikey.perf.ski.SkiWorkload.Prepared;
import io.elastikey.protocol.pki.CertificateAuthority;
import io.elastikey.protocol.pki.IssuedCertificate;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.Validity;
import io.elastikey.protocol.ski.SignatureScheme;
import io.elastikey.protocol.ski.SkiHash;
import io.elastikey.protocol.ski.SkiMethod;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class AnswerVerifierTest {
    private static final Random RANDOM = new Random(42);
    private static IssuedCertificate rsa;
    private static IssuedCertificate ec256;
    private static IssuedCertificate ec384;
    private static IssuedCertificate ed25519;

    @BeforeAll
    static void issueKeys() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create("Verifier CA", KeyType.EC_P256, Validity.days(1));
        rsa = issue(ca, KeyType.RSA_2048);
        ec256 = issue(ca, KeyType.EC_P256);
        ec384 = issue(ca, KeyType.EC_P384);
        ed25519 = issue(ca, KeyType.ED25519);
    }

    /** Method sources run after {@code @BeforeAll}, so the keys are there. */
    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("RSA decrypt", rsa, SkiMethod.RSA, null, null),
                Arguments.of("RSA-RAW block", rsa, SkiMethod.RSA_RAW, null, null),
                Arguments.of("ECDHE RSA SHA-256", rsa, SkiMethod.ECDHE, SkiHash.SHA256, null),
                Arguments.of("ECDHE RSA MD5-SHA1", rsa, SkiMethod.ECDHE, SkiHash.MD5_SHA1, null),
                Arguments.of("ECDHE P-256 SHA-256", ec256, SkiMethod.ECDHE, SkiHash.SHA256, null),
                Arguments.of("ECDHE P-256 MD5-SHA1", ec256, SkiMethod.ECDHE, SkiHash.MD5_SHA1, null),
                Arguments.of("SIGN rsa_pss_rsae_sha256", rsa, SkiMethod.SIGN, null,
                        SignatureScheme.RSA_PSS_RSAE_SHA256),
                Arguments.of("SIGN rsa_pkcs1_sha256", rsa, SkiMethod.SIGN, null, SignatureScheme.RSA_PKCS1_SHA256),
                Arguments.of("SIGN P-256", ec256, SkiMethod.SIGN, null, SignatureScheme.ECDSA_SECP256R1_SHA256),
                Arguments.of("SIGN P-384", ec384, SkiMethod.SIGN, null, SignatureScheme.ECDSA_SECP384R1_SHA384),
                Arguments.of("SIGN Ed25519", ed25519, SkiMethod.SIGN, null, SignatureScheme.ED25519));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void theRightAnswerVerifies(String name, IssuedCertificate key, SkiMethod method, SkiHash hash,
            SignatureScheme scheme) throws Exception {
        Prepared prepared = prepare(key, method, hash, scheme);

        assertThat(AnswerVerifier.verify(prepared, TestKeyServer.operate(key.privateKey(), prepared.request())))
                .isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void aChangedAnswerDoesNot(String name, IssuedCertificate key, SkiMethod method, SkiHash hash,
            SignatureScheme scheme) throws Exception {
        Prepared prepared = prepare(key, method, hash, scheme);
        byte[] answer = TestKeyServer.operate(key.privateKey(), prepared.request());
        answer[answer.length - 1] ^= 1;

        assertThat(AnswerVerifier.verify(prepared, answer)).isFalse();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void theAnswerToAnotherRequestDoesNot(String name, IssuedCertificate key, SkiMethod method, SkiHash hash,
            SignatureScheme scheme) throws Exception {
        Prepared prepared = prepare(key, method, hash, scheme);
        Prepared other = prepare(key, method, hash, scheme);

        assertThat(AnswerVerifier.verify(prepared, TestKeyServer.operate(key.privateKey(), other.request())))
                .isFalse();
    }

    @Test
    void anRsaAnswerOfRandomBytesAsImplicitRejectionWouldGiveDoesNotVerify() throws Exception {
        Prepared prepared = prepare(rsa, SkiMethod.RSA, null, null);
        byte[] pseudoRandom = new byte[SkiWorkload.PREMASTER_LENGTH];
        RANDOM.nextBytes(pseudoRandom);

        assertThat(AnswerVerifier.verify(prepared, pseudoRandom)).isFalse();
    }

    @Test
    void aSignatureByAnotherKeyOfTheSameTypeDoesNotVerify() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create("Other CA", KeyType.EC_P256, Validity.days(1));
        IssuedCertificate stranger = issue(ca, KeyType.EC_P256);
        Prepared prepared = prepare(ec256, SkiMethod.ECDHE, SkiHash.SHA256, null);

        assertThat(AnswerVerifier.verify(prepared, TestKeyServer.operate(stranger.privateKey(), prepared.request())))
                .isFalse();
    }

    @Test
    void anAnswerThatIsNotEvenASignatureDoesNotVerify() throws Exception {
        Prepared prepared = prepare(ec256, SkiMethod.SIGN, null, SignatureScheme.ECDSA_SECP256R1_SHA256);

        assertThat(AnswerVerifier.verify(prepared, new byte[] {1, 2, 3})).isFalse();
    }

    private static Prepared prepare(IssuedCertificate certificate, SkiMethod method, SkiHash hash,
            SignatureScheme scheme) throws GeneralSecurityException {
        Key key = SkiKeySet.keyOf(certificate.certificate());
        return SkiWorkload.prepare(key, method, hash, scheme, RANDOM);
    }

    private static IssuedCertificate issue(CertificateAuthority ca, KeyType type) throws GeneralSecurityException {
        return ca.issueServer(type.cliName() + ".example", List.of(type.cliName() + ".example"), type,
                Validity.days(1));
    }
}

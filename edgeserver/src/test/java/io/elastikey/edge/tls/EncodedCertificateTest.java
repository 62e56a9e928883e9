package io.elastikey.edge.tls;

import io.elastikey.protocol.pki.CertificateAuthority;
import io.elastikey.protocol.pki.DevPki;
import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.TestKeys;
import io.elastikey.protocol.pki.Validity;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.security.KeyPair;
import java.security.SignatureException;
import java.security.cert.X509Certificate;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EncodedCertificateTest {
    @TempDir
    Path tmp;
    CertificateAuthority ca;
    X509Certificate jdk;
    EncodedCertificate encoded;

    @BeforeEach
    void setUp() throws Exception {
        ca = DevPki.loadOrCreate(tmp.resolve("pki")).ca();
        KeyPair pair = TestKeys.of(KeyType.EC_P256);
        jdk = ca.certify(pair.getPublic(), CertificateAuthority.Purpose.SERVER, "www.example.test",
                List.of("www.example.test", "api.example.test"), Validity.days(3));
        encoded = new EncodedCertificate(jdk, KeyIds.keyId(jdk.getPublicKey()));
    }

    @Test
    void answersWhatTheJdksParseAnswers() throws Exception {
        assertThat(encoded.getSubjectX500Principal()).isEqualTo(jdk.getSubjectX500Principal());
        assertThat(encoded.getIssuerX500Principal()).isEqualTo(ca.certificate().getSubjectX500Principal());
        assertThat(encoded.getSerialNumber()).isEqualTo(jdk.getSerialNumber());
        assertThat(encoded.getNotAfter()).isEqualTo(jdk.getNotAfter());
        assertThat(encoded.getPublicKey()).isEqualTo(jdk.getPublicKey());
        assertThat(encoded.getSubjectAlternativeNames()).isEqualTo(jdk.getSubjectAlternativeNames());
        assertThat(encoded.getExtendedKeyUsage()).isEqualTo(jdk.getExtendedKeyUsage());
        assertThat(encoded.getBasicConstraints()).isEqualTo(jdk.getBasicConstraints());
        assertThat(encoded.getSigAlgName()).isEqualTo(jdk.getSigAlgName());
        encoded.checkValidity();
        encoded.verify(ca.certificate().getPublicKey());
        assertThatThrownBy(() -> encoded.verify(jdk.getPublicKey())).isInstanceOf(SignatureException.class);
    }

    @Test
    void isEqualToTheSameCertificateEitherWayAndHandsOutCopies() throws Exception {
        assertThat(encoded).isEqualTo(jdk).hasSameHashCodeAs(jdk);
        assertThat(jdk).isEqualTo(encoded);
        assertThat(encoded).isNotEqualTo(ca.certificate());

        byte[] handedOut = encoded.getEncoded();
        handedOut[0] ^= 1;
        assertThat(encoded.getEncoded()).isEqualTo(jdk.getEncoded());
        assertThat(encoded.keyId()).isEqualTo(KeyIds.keyId(jdk.getPublicKey()));
    }
}

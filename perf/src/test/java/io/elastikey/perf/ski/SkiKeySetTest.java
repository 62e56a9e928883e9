// SkiKeySetTest -- a PEM file of certificates becomes keys named by SHA-1 fingerprint, filtered by what a method needs.
package io.elastikey.perf.ski;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.LongStream;

import io.elastikey.perf.ski.SkiWorkload.KeyOrder;
import io.elastikey.protocol.pki.CertificateAuthority;
import io.elastikey.protocol.pki.IssuedCertificate;
import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.PemFiles;
import io.elastikey.protocol.pki.Validity;
import io.elastikey.protocol.ski.SignatureScheme;
import io.elastikey.protocol.ski.SkiHash;
import io.elastikey.protocol.ski.SkiMethod;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SkiKeySetTest {
    @TempDir
    static Path directory;
    private static Path keysFile;
    private static IssuedCertificate ec;
    private static IssuedCertificate ed;

    @BeforeAll
    static void writeKeys() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create("Keys CA", KeyType.EC_P256, Validity.days(1));
        ec = ca.issueServer("a.example", List.of("a.example"), KeyType.EC_P256, Validity.days(1));
        ed = ca.issueServer("b.example", List.of("b.example"), KeyType.ED25519, Validity.days(1));
        keysFile = directory.resolve("keys.pem");
        PemFiles.writeCertificates(keysFile, List.of(ec.certificate(), ed.certificate()));
    }

    @Test
    void namesEachKeyByItsCertificatesSha1FingerprintInUpperCaseHex() throws Exception {
        SkiKeySet keys = SkiKeySet.load(keysFile);

        String fingerprint = HexFormat.of().withUpperCase()
                .formatHex(MessageDigest.getInstance("SHA-1").digest(ec.certificate().getEncoded()));
        assertThat(keys.keys()).extracting(SkiKeySet.Key::spki).hasSize(2).first().isEqualTo(fingerprint);
        assertThat(keys.keys()).extracting(SkiKeySet.Key::type).containsExactly(KeyType.EC_P256, KeyType.ED25519);
    }

    @Test
    void aKeylessClientsKeysAreNamedByTheirSubjectKeyIdentifier() throws Exception {
        SkiKeySet keys = SkiKeySet.load(keysFile, SkiMethod.SIGN, null, 10, KeyName.KEYLESS_SKI);

        assertThat(keys.keys()).extracting(SkiKeySet.Key::spki).containsExactly(
                HexFormat.of().withUpperCase().formatHex(KeyIds.keylessSki(ec.certificate().getPublicKey())),
                HexFormat.of().withUpperCase().formatHex(KeyIds.keylessSki(ed.certificate().getPublicKey())));
        assertThat(KeyName.sentBy(SkiLoadGenerator.Protocol.KEYLESS)).isEqualTo(KeyName.KEYLESS_SKI);
        assertThat(KeyName.sentBy(SkiLoadGenerator.Protocol.SKI)).isEqualTo(KeyName.CERTIFICATE_SHA1);
    }

    @Test
    void keepsTheKeysASchemeCanUse() throws Exception {
        SkiKeySet keys = SkiKeySet.load(keysFile);

        assertThat(keys.fitting(SkiMethod.SIGN, SignatureScheme.ED25519).keys()).extracting(SkiKeySet.Key::type)
                .containsExactly(KeyType.ED25519);
        assertThat(keys.fitting(SkiMethod.SIGN, null).keys()).hasSize(2);
        assertThat(keys.fitting(SkiMethod.ECDHE, null).keys()).hasSize(2);
    }

    @Test
    void saysWhichKeysThereAreWhenNoneFits() throws Exception {
        SkiKeySet keys = SkiKeySet.load(keysFile);

        assertThatThrownBy(() -> keys.fitting(SkiMethod.RSA, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("RSA").hasMessageContaining("ec256").hasMessageContaining("ed25519");
    }

    @Test
    void roundRobinVisitsEveryKeyInTurnAndEveryVariantOfIt() throws Exception {
        SkiKeySet set = SkiKeySet.load(keysFile);
        List<SkiKeySet.Key> keys = set.keys();
        SkiWorkload workload = SkiWorkload.prepare(set, SkiMethod.ECDHE, SkiHash.SHA256, null, KeyOrder.ROUND_ROBIN,
                3);
        SplittableRandom random = new SplittableRandom(1);

        assertThat(workload.request(0, random).key()).isEqualTo(keys.get(0));
        assertThat(workload.request(1, random).key()).isEqualTo(keys.get(1));
        assertThat(workload.request(2, random).key()).isEqualTo(keys.get(0));
        assertThat(LongStream.range(0, 6).mapToObj(i -> workload.request(i, random)).distinct())
                .hasSize(6);
    }

    @Test
    void signWithoutASchemeUsesEachKeysOwn() throws Exception {
        SkiWorkload workload = SkiWorkload.prepare(SkiKeySet.load(keysFile), SkiMethod.SIGN, SkiHash.SHA256, null,
                KeyOrder.ROUND_ROBIN, 1);
        SplittableRandom random = new SplittableRandom(1);

        assertThat(workload.request(0, random).request().scheme()).isEqualTo(SignatureScheme.ECDSA_SECP256R1_SHA256);
        assertThat(workload.request(1, random).request().scheme()).isEqualTo(SignatureScheme.ED25519);
    }
}

// SkiWorkloadTest -- which key each request names under each order, and RSA requests beyond the prepared table.
package io.elastikey.perf.ski;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import io.elastikey.perf.load.ZipfKeys;
import io.elastikey.perf.ski.SkiWorkload.KeyOrder;
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
import org.junit.jupiter.api.io.TempDir;

class SkiWorkloadTest {
    private static final int KEYS = 1000;

    @TempDir
    static Path directory;
    private static IssuedCertificate ec;
    private static IssuedCertificate rsa;

    @BeforeAll
    static void issueKeys() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create("Workload CA", KeyType.EC_P256, Validity.days(1));
        ec = ca.issueServer("ec.example", List.of("ec.example"), KeyType.EC_P256, Validity.days(1));
        rsa = ca.issueServer("rsa.example", List.of("rsa.example"), KeyType.RSA_2048, Validity.days(1));
    }

    @Test
    void zipfOrderNamesTheTopRankedKeyMostOftenAndItIsNotTheFirstKey() throws Exception {
        SkiKeySet keys = keyList("ec.keys", ec, KEYS);
        SkiWorkload workload = SkiWorkload.prepare(keys, SkiMethod.SIGN, null, null, KeyOrder.ZIPF, 1.1, 1);
        SplittableRandom random = new SplittableRandom(3);
        Map<String, Integer> counts = new HashMap<>();
        int draws = 200_000;
        for (long i = 0; i < draws; i++) {
            Prepared prepared = workload.request(i, random);
            assertThat(prepared.request().scheme()).isEqualTo(SignatureScheme.ECDSA_SECP256R1_SHA256);
            counts.merge(prepared.request().spki(), 1, Integer::sum);
        }

        String top = keys.spki((int) new ZipfKeys(KEYS, 1.1).keyOfRank(1));
        double norm = 0;
        for (int k = 1; k <= KEYS; k++) {
            norm += Math.pow(k, -1.1);
        }
        assertThat(counts.values().stream().mapToInt(Integer::intValue).max().orElseThrow())
                .isEqualTo(counts.get(top));
        assertThat(counts.get(top) / (double) draws).isCloseTo(1 / norm, org.assertj.core.api.Assertions.within(0.01));
        assertThat(top).isNotEqualTo(keys.spki(0));
        assertThat(counts.size()).as("most keys are named at least once").isGreaterThan(KEYS / 2);
    }

    @Test
    void uniformOrderSpreadsOverEveryKeyAndEachSignatureInputIsFresh() throws Exception {
        SkiKeySet keys = keyList("ec-uniform.keys", ec, KEYS);
        SkiWorkload workload = SkiWorkload.prepare(keys, SkiMethod.SIGN, null, null, KeyOrder.RANDOM, 1);
        SplittableRandom random = new SplittableRandom(5);
        Map<String, Integer> counts = new HashMap<>();
        for (long i = 0; i < 100_000; i++) {
            counts.merge(workload.request(i, random).request().spki(), 1, Integer::sum);
        }

        assertThat(counts).hasSize(KEYS);
        assertThat(counts.values()).allSatisfy(n -> assertThat(n).isBetween(50, 150));
        assertThat(workload.request(0, random).request().input())
                .hasSize(SkiWorkload.SIGNED_INPUT_LENGTH)
                .isNotEqualTo(workload.request(0, random).request().input());
        assertThat(workload.preparedAhead()).isZero();
    }

    @Test
    void rsaRequestsBeyondThePreparedTableArePreparedWhenSentAndStillDecryptRight() throws Exception {
        SkiKeySet keys = keyList("rsa.keys", rsa, 10);
        SkiWorkload workload = SkiWorkload.prepare(keys, SkiMethod.RSA, SkiHash.SHA256, null, KeyOrder.ROUND_ROBIN,
                1.1, 1, 4);
        SplittableRandom random = new SplittableRandom(7);

        assertThat(workload.preparedAhead()).isEqualTo(4);
        for (long i = 0; i < 10; i++) {
            Prepared prepared = workload.request(i, random);
            assertThat(prepared.request().spki()).isEqualTo(keys.spki((int) i));
            byte[] answer = TestKeyServer.operate(rsa.privateKey(), prepared.request());
            assertThat(AnswerVerifier.verify(prepared, answer)).isTrue();
        }
        assertThat(workload.preparedLate()).isEqualTo(6);
        assertThat(workload.request(3, random).request().spki()).isEqualTo(keys.spki(3));
        assertThat(workload.preparedLate()).as("slot 3 now holds key 7: key 3 is prepared again").isEqualTo(7);
    }

    /**
     * A key list of {@code n} entries that all carry {@code certificate}'s public key under made-up fingerprints
     * (1, 2, 3, ...): enough keys to count, one private key to answer them all.
     */
    private static SkiKeySet keyList(String name, IssuedCertificate certificate, int n) throws Exception {
        StringBuilder list = new StringBuilder(KeyListFile.HEADER).append('\n');
        KeyType type = KeyType.of(certificate.certificate().getPublicKey());
        String spki = Base64.getEncoder().encodeToString(certificate.certificate().getPublicKey().getEncoded());
        for (int i = 1; i <= n; i++) {
            list.append(HexFormat.of().withUpperCase().toHexDigits((long) i)).append("000000000000000000000000 ")
                    .append(type.cliName()).append(' ').append(spki).append('\n');
        }
        Path file = directory.resolve(name);
        Files.writeString(file, list);
        return SkiKeySet.load(file);
    }
}

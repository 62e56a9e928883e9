// P256NativeTest -- the native P-256 signer: it loads where it was built, its signatures verify, bad keys are refused.
package io.elastikey.keyserver.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.elastikey.protocol.pki.KeyType;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.Signature;
import java.security.SignatureException;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.InvalidKeySpecException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class P256NativeTest {
    private static final String RESOURCE = "native/linux-"
            + ("amd64".equals(System.getProperty("os.arch")) ? "x86_64" : System.getProperty("os.arch"))
            + "/libelastikey_p256_jni.so";
    private static P256Native signer;

    /** Built means loadable: a library the build made but the JVM cannot load fails here, it is not skipped. */
    @BeforeAll
    static void load() {
        boolean built = P256NativeTest.class.getClassLoader().getResource(RESOURCE) != null;
        assumeTrue(built, "libelastikey_p256_jni was not built here (no OpenSSL headers: apt-get install libssl-dev)");
        P256Native.Loaded loaded = P256Native.load();
        assertThat(loaded.problem()).isNull();
        signer = loaded.signer();
        assertThat(signer.version()).containsIgnoringCase("SSL");
    }

    @Test
    void signaturesOfManyKeysVerifyWithTheJdk() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC", "SunEC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        byte[] message = "TLS 1.3, server CertificateVerify".getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < 200; i++) {
            KeyPair pair = generator.generateKeyPair();
            P256ScalarKey key = P256Pkcs8.parse(pair.getPrivate().getEncoded());
            assertThat(key.getS()).isEqualTo(((ECPrivateKey) pair.getPrivate()).getS());

            byte[] signature = signer.sign(key, sha256(message), 32);

            Signature verify = Signature.getInstance("SHA256withECDSA", "SunEC");
            verify.initVerify(pair.getPublic());
            verify.update(message);
            assertThat(verify.verify(signature)).as("key %d", i).isTrue();
        }
    }

    @Test
    void aHashLongerThanTheOrderIsTruncatedAsEcdsaSays() throws Exception {
        KeyPair pair = TestKeys.pair(KeyType.EC_P256);
        P256ScalarKey key = P256Pkcs8.parse(pair.getPrivate().getEncoded());
        byte[] message = "signed with SHA-512".getBytes(StandardCharsets.US_ASCII);
        byte[] sha512 = MessageDigest.getInstance("SHA-512").digest(message);

        Signature verify = Signature.getInstance("SHA512withECDSA", "SunEC");
        verify.initVerify(pair.getPublic());
        verify.update(message);
        assertThat(verify.verify(signer.sign(key, sha512, sha512.length))).isTrue();
    }

    @Test
    void threadsSignWithTheirOwnKeysConcurrently() throws Exception {
        List<KeyPair> pairs = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            pairs.add(TestKeys.pair(KeyType.EC_P256, i));
        }
        byte[] digest = sha256("concurrent".getBytes(StandardCharsets.US_ASCII));
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Boolean>> results = new ArrayList<>();
            for (KeyPair pair : pairs) {
                results.add(pool.submit(() -> {
                    P256ScalarKey key = P256Pkcs8.parse(pair.getPrivate().getEncoded());
                    Signature verify = Signature.getInstance("NONEwithECDSA", "SunEC");
                    for (int i = 0; i < 300; i++) {
                        verify.initVerify(pair.getPublic());
                        verify.update(digest);
                        if (!verify.verify(signer.sign(key, digest, digest.length))) {
                            return false;
                        }
                    }
                    return true;
                }));
            }
            for (Future<Boolean> result : results) {
                assertThat(result.get()).isTrue();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void digestsOfNoBytesOrMoreThan64AreRefusedWithTheirReason() throws Exception {
        P256ScalarKey key = P256Pkcs8.parse(TestKeys.pair(KeyType.EC_P256).getPrivate().getEncoded());
        assertThatThrownBy(() -> signer.sign(key, new byte[0], 0))
                .isInstanceOf(SignatureException.class).hasMessageContaining("wrong size");
        assertThatThrownBy(() -> signer.sign(key, new byte[65], 65))
                .isInstanceOf(SignatureException.class).hasMessageContaining("wrong size");
        assertThatThrownBy(() -> signer.sign(key, new byte[32], 33))
                .isInstanceOf(SignatureException.class).hasMessageContaining("wrong size");
    }

    @Test
    void theScalarIsReadFromEveryUsualEncoding() throws Exception {
        KeyPair pair = TestKeys.pair(KeyType.EC_P256);
        BigInteger s = ((ECPrivateKey) pair.getPrivate()).getS();
        // OpenSSL's form: the public key inside ECPrivateKey.
        byte[] openssl = HexFormat.of().parseHex("308187020100301306072a8648ce3d020106082a8648ce3d030107046d306b0201010420"
                + hex32(s) + "a144034200" + "04" + "00".repeat(64));
        assertThat(P256Pkcs8.parse(openssl).getS()).isEqualTo(s);
        // The curve only in ECPrivateKey, none in the algorithm identifier.
        byte[] curveInKey = HexFormat.of().parseHex("3043020100300906072a8648ce3d0201"
                + "043330310201010420" + hex32(s) + "a00a06082a8648ce3d030107");
        assertThat(P256Pkcs8.parse(curveInKey).getS()).isEqualTo(s);
    }

    @Test
    void keysThatAreNotP256ScalarsAreRefusedWithoutQuotingThem() {
        String n = "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551";
        assertRefused(pkcs8(n), "out of range");
        assertRefused(pkcs8("00".repeat(32)), "out of range");
        assertRefused(TestKeys.pair(KeyType.RSA_2048).getPrivate().getEncoded(), "not an EC key");
        assertRefused(TestKeys.pair(KeyType.EC_P384).getPrivate().getEncoded(), "not on the named curve P-256");
        byte[] valid = TestKeys.pair(KeyType.EC_P256).getPrivate().getEncoded();
        assertRefused(Arrays.copyOf(valid, valid.length - 1), "DER");
        assertRefused(Arrays.copyOf(valid, valid.length + 1), "not valid DER");
        assertRefused(new byte[] {0x30, (byte) 0x84, 0, 0, 0, 1, 0}, "not valid DER");
        assertRefused(new byte[0], "DER");
        // no curve anywhere
        assertRefused(HexFormat.of().parseHex("3037020100300906072a8648ce3d02010427302502010104" + "20"
                + "11".repeat(32)), "names no curve");
    }

    /** Damaged DER of every kind ends in a refusal or a valid scalar, never in another exception. */
    @Test
    void mutatedEncodingsAreRefusedOrReadNeverThrowAnythingElse() {
        byte[] valid = TestKeys.pair(KeyType.EC_P256).getPrivate().getEncoded();
        java.util.Random random = new java.util.Random(12);
        int refused = 0;
        for (int i = 0; i < 20_000; i++) {
            byte[] der = Arrays.copyOf(valid, valid.length);
            switch (i % 3) {
                case 0 -> der[random.nextInt(der.length)] ^= (byte) (1 << random.nextInt(8));
                case 1 -> der[random.nextInt(der.length)] = (byte) random.nextInt(256);
                default -> der = Arrays.copyOf(der, random.nextInt(der.length + 8));
            }
            try {
                P256ScalarKey key = P256Pkcs8.parse(der);
                assertThat(key.getS().signum()).isPositive();
                assertThat(key.getS()).isLessThan(P256ScalarKey.P256.getOrder());
            } catch (InvalidKeySpecException e) {
                refused++;
            }
        }
        assertThat(refused).isGreaterThan(10_000);
    }

    private static void assertRefused(byte[] der, String reason) {
        assertThatThrownBy(() -> P256Pkcs8.parse(der))
                .isInstanceOf(InvalidKeySpecException.class)
                .hasMessageContaining(reason)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContainPattern("[0-9a-f]{16}"));
    }

    /** A JDK-style PKCS#8 P-256 key around a given scalar. */
    private static byte[] pkcs8(String scalarHex) {
        return HexFormat.of().parseHex("3041020100301306072a8648ce3d020106082a8648ce3d030107042730250201010420"
                + scalarHex);
    }

    private static String hex32(BigInteger s) {
        String hex = s.toString(16);
        return "0".repeat(64 - hex.length()) + hex;
    }

    private static byte[] sha256(byte[] data) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(data);
    }
}

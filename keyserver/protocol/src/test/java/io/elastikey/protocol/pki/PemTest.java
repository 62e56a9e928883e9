// PemTest -- PEM round trips for every key type, traditional formats, and errors that never quote the input.
package io.elastikey.protocol.pki;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.RSAPrivateCrtKey;
import java.util.Base64;
import java.util.List;

import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openssl.PKCS8Generator;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8EncryptorBuilder;
import org.bouncycastle.openssl.jcajce.JcePEMEncryptorBuilder;
import org.bouncycastle.operator.OutputEncryptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class PemTest {
    /** Bouncy Castle as an object, for the encryptors below; never registered as a global provider. */
    private static final BouncyCastleProvider BC = new BouncyCastleProvider();
    private static final char[] PASSWORD = "correct horse".toCharArray();

    @ParameterizedTest
    @EnumSource(KeyType.class)
    void everyKeyTypeRoundTripsThroughPkcs8PemAndStillSigns(KeyType type) throws Exception {
        KeyPair pair = TestKeys.of(type);

        String pem = Pem.writePrivateKey(pair.getPrivate());
        PrivateKey read = Pem.readPrivateKey(pem);

        assertThat(pem).startsWith("-----BEGIN PRIVATE KEY-----\n").endsWith("\n-----END PRIVATE KEY-----\n");
        assertThat(pem.lines()).allMatch(line -> line.length() <= 64);
        assertThat(read).isEqualTo(pair.getPrivate());
        assertThat(read.getEncoded()).isEqualTo(pair.getPrivate().getEncoded());
        assertSignsFor(type, read, pair.getPublic());
    }

    @ParameterizedTest
    @EnumSource(KeyType.class)
    void everyPublicKeyRoundTripsThroughPem(KeyType type) throws Exception {
        PublicKey key = TestKeys.of(type).getPublic();

        String pem = Pem.writePublicKey(key);

        assertThat(pem).startsWith("-----BEGIN PUBLIC KEY-----\n");
        assertThat(Pem.readPublicKey(pem)).isEqualTo(key);
    }

    @Test
    void readsTraditionalRsaPrivateKey() throws Exception {
        KeyPair pair = TestKeys.of(KeyType.RSA_2048);
        PrivateKeyInfo pkcs8 = PrivateKeyInfo.getInstance(pair.getPrivate().getEncoded());
        String pem = armor("RSA PRIVATE KEY", pkcs8.parsePrivateKey());

        PrivateKey read = Pem.readPrivateKey(pem);

        assertThat(read).isInstanceOf(RSAPrivateCrtKey.class).isEqualTo(pair.getPrivate());
        assertSignsFor(KeyType.RSA_2048, read, pair.getPublic());
    }

    @ParameterizedTest
    @EnumSource(names = {"EC_P256", "EC_P384"})
    void readsTraditionalEcPrivateKey(KeyType type) throws Exception {
        KeyPair pair = TestKeys.of(type);
        String pem = armor("EC PRIVATE KEY", sec1(pair));

        PrivateKey read = Pem.readPrivateKey(pem);

        assertThat(((ECPrivateKey) read).getS()).isEqualTo(((ECPrivateKey) pair.getPrivate()).getS());
        assertThat(KeyType.of(pair.getPublic())).isEqualTo(type);
        assertSignsFor(type, read, pair.getPublic());
    }

    @Test
    void readsTheKeyOutOfAFileThatAlsoHoldsCertificates() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create("Pem Test CA", TestKeys.of(KeyType.EC_P256),
                Validity.days(1));
        String combined = Pem.writeCertificate(ca.certificate()) + Pem.writePrivateKey(ca.privateKey());

        assertThat(Pem.readPrivateKey(combined)).isEqualTo(ca.privateKey());
        assertThat(Pem.readCertificates(combined)).containsExactly(ca.certificate());
    }

    @Test
    void certificatesRoundTripAloneAndAsAChain() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create("Pem Test CA", TestKeys.of(KeyType.EC_P256),
                Validity.days(1));
        IssuedCertificate leaf = ca.issueClient("pem-test", List.of(), KeyType.EC_P256, Validity.days(1));

        String single = Pem.writeCertificate(leaf.certificate());
        String chain = Pem.writeCertificates(leaf.chain());

        assertThat(single).startsWith("-----BEGIN CERTIFICATE-----\n").endsWith("-----END CERTIFICATE-----\n");
        assertThat(Pem.readCertificate(single)).isEqualTo(leaf.certificate());
        assertThat(Pem.readCertificates(chain)).containsExactly(leaf.certificate(), ca.certificate());
        assertThat(Pem.readCertificate(chain)).as("the leaf of a chain").isEqualTo(leaf.certificate());
    }

    @Test
    void garbageIsNotAKey() {
        assertThatThrownBy(() -> Pem.readPrivateKey("this is not a key\n"))
                .isExactlyInstanceOf(PemException.class)
                .hasMessage("PEM text: expected one unencrypted private key (PRIVATE KEY, RSA PRIVATE KEY or "
                        + "EC PRIVATE KEY), found text without a '-----BEGIN ...-----' line");
    }

    @Test
    void emptyAndBinaryInputsAreNamedAsSuch() {
        byte[] der = TestKeys.of(KeyType.EC_P256).getPrivate().getEncoded();

        assertThatThrownBy(() -> Pem.readCertificate(""))
                .isInstanceOf(PemException.class)
                .hasMessageEndingWith("found empty input");
        assertThatThrownBy(() -> Pem.readPrivateKey(new String(der, StandardCharsets.ISO_8859_1)))
                .isInstanceOf(PemException.class)
                .hasMessageContaining("found binary data, not PEM text");
    }

    @Test
    void aCertificateIsNotAPrivateKey() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create("Pem Test CA", TestKeys.of(KeyType.EC_P256),
                Validity.days(1));

        assertThatThrownBy(() -> Pem.readPrivateKey(Pem.writeCertificate(ca.certificate())))
                .isInstanceOf(PemException.class)
                .hasMessageEndingWith("found a PEM block CERTIFICATE");
        assertThatThrownBy(() -> Pem.readCertificate(Pem.writePrivateKey(ca.privateKey())))
                .isInstanceOf(PemException.class)
                .hasMessageContaining("expected at least one certificate (CERTIFICATE)")
                .hasMessageEndingWith("found a PEM block PRIVATE KEY");
    }

    @Test
    void twoPrivateKeysAreAmbiguous() {
        String two = Pem.writePrivateKey(TestKeys.of(KeyType.EC_P256).getPrivate())
                + Pem.writePrivateKey(TestKeys.of(KeyType.ED25519).getPrivate());

        assertThatThrownBy(() -> Pem.readPrivateKey(two))
                .isInstanceOf(PemException.class)
                .hasMessageEndingWith("found 2 private keys");
    }

    @Test
    void truncatedKeyIsMalformedAndTheMessageQuotesNoneOfIt() {
        String pem = Pem.writePrivateKey(TestKeys.of(KeyType.RSA_2048).getPrivate());
        List<String> lines = pem.lines().toList();
        String truncated = String.join("\n", lines.subList(0, lines.size() / 2)) + "\n-----END PRIVATE KEY-----\n";

        assertThatThrownBy(() -> Pem.readPrivateKey(truncated))
                .isInstanceOf(PemException.class)
                .hasMessageContaining("found malformed data in a PEM block PRIVATE KEY")
                .satisfies(e -> assertQuotesNothingOf(e.getMessage(), pem))
                .hasNoCause();
    }

    @Test
    void badBase64IsMalformedAndTheMessageQuotesNoneOfIt() {
        String pem = Pem.writePrivateKey(TestKeys.of(KeyType.EC_P256).getPrivate());
        String corrupted = pem.replaceFirst("\n(.)", "\n!*$1");

        assertThatThrownBy(() -> Pem.readPrivateKey(corrupted))
                .isInstanceOf(PemException.class)
                .hasMessageContaining("found malformed data")
                .satisfies(e -> assertQuotesNothingOf(e.getMessage(), pem))
                .hasNoCause();
    }

    @Test
    void encryptedPkcs8KeyIsRefusedWithoutQuotingIt() throws Exception {
        OutputEncryptor encryptor = new JceOpenSSLPKCS8EncryptorBuilder(PKCS8Generator.AES_256_CBC)
                .setProvider(BC).setPassword(PASSWORD).build();
        String pem = write(new JcaPKCS8Generator(TestKeys.of(KeyType.EC_P256).getPrivate(), encryptor).generate());

        assertThat(pem).startsWith("-----BEGIN ENCRYPTED PRIVATE KEY-----");
        assertThatThrownBy(() -> Pem.readPrivateKey(pem))
                .isExactlyInstanceOf(PemException.class)
                .hasMessageContaining("found an encrypted private key; decrypt it first")
                .satisfies(e -> assertQuotesNothingOf(e.getMessage(), pem));
    }

    @Test
    void encryptedTraditionalKeyIsRefusedWithoutQuotingIt() throws Exception {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
            writer.writeObject(TestKeys.of(KeyType.RSA_2048).getPrivate(),
                    new JcePEMEncryptorBuilder("AES-128-CBC").setProvider(BC).build(PASSWORD));
        }
        String pem = out.toString();

        assertThat(pem).startsWith("-----BEGIN RSA PRIVATE KEY-----").contains("Proc-Type: 4,ENCRYPTED");
        assertThatThrownBy(() -> Pem.readPrivateKey(pem))
                .isExactlyInstanceOf(PemException.class)
                .hasMessageContaining("found an encrypted private key")
                .satisfies(e -> assertQuotesNothingOf(e.getMessage(), pem));
    }

    @Test
    void certificateOfAnotherFormatIsDescribedByItsLabel() {
        String request = "-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n";

        assertThatThrownBy(() -> Pem.readCertificates(request))
                .isInstanceOf(PemException.class)
                .hasMessageContaining("CERTIFICATE REQUEST");
    }

    @Test
    void anUnexportableKeyCannotBeWritten() {
        PrivateKey opaque = new PrivateKey() {
            private static final long serialVersionUID = 1L;

            @Override
            public String getAlgorithm() {
                return "RSA";
            }

            @Override
            public String getFormat() {
                return null;
            }

            @Override
            public byte[] getEncoded() {
                return null;
            }
        };

        assertThatThrownBy(() -> Pem.writePrivateKey(opaque))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot be written as PKCS#8");
    }

    private static void assertSignsFor(KeyType type, PrivateKey privateKey, PublicKey publicKey) throws Exception {
        byte[] message = "split TLS".getBytes(StandardCharsets.US_ASCII);
        Signature signer = Signature.getInstance(type.signatureAlgorithm());
        signer.initSign(privateKey);
        signer.update(message);
        byte[] signature = signer.sign();
        Signature verifier = Signature.getInstance(type.signatureAlgorithm());
        verifier.initVerify(publicKey);
        verifier.update(message);
        assertThat(verifier.verify(signature)).isTrue();
    }

    /** No run of 12 characters of any base64 line of {@code pem} appears in {@code message}. */
    private static void assertQuotesNothingOf(String message, String pem) {
        pem.lines().filter(line -> !line.startsWith("-----") && !line.contains(":")).forEach(line -> {
            for (int i = 0; i + 12 <= line.length(); i++) {
                assertThat(message).doesNotContain(line.substring(i, i + 12));
            }
        });
    }

    /** The SEC 1 ECPrivateKey that {@code openssl ecparam -genkey} writes: with curve OID and public key. */
    private static org.bouncycastle.asn1.sec.ECPrivateKey sec1(KeyPair pair) {
        ECPrivateKey key = (ECPrivateKey) pair.getPrivate();
        SubjectPublicKeyInfo publicKey = SubjectPublicKeyInfo.getInstance(pair.getPublic().getEncoded());
        ASN1Encodable curve = publicKey.getAlgorithm().getParameters();
        return new org.bouncycastle.asn1.sec.ECPrivateKey(key.getParams().getOrder().bitLength(), key.getS(),
                publicKey.getPublicKeyData(), curve);
    }

    private static String armor(String label, ASN1Encodable structure) throws Exception {
        String body = Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(structure.toASN1Primitive()
                .getEncoded());
        return "-----BEGIN " + label + "-----\n" + body + "\n-----END " + label + "-----\n";
    }

    private static String write(Object pemObject) throws Exception {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
            writer.writeObject(pemObject);
        }
        return out.toString();
    }
}

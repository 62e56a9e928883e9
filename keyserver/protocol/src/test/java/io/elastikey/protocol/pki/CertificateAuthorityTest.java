// CertificateAuthorityTest -- what the dev CA puts into the certificates it creates and issues.
package io.elastikey.protocol.pki;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import java.math.BigInteger;
import java.net.InetAddress;
import java.security.InvalidKeyException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAPrivateCrtKey;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.x509.AuthorityKeyIdentifier;
import org.bouncycastle.asn1.x509.Extension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class CertificateAuthorityTest {
    private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
    private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
    private static final int DNS = 2;
    private static final int IP = 7;
    private static final int DIGITAL_SIGNATURE = 0;
    private static final int KEY_ENCIPHERMENT = 2;
    private static final int KEY_CERT_SIGN = 5;
    private static final int CRL_SIGN = 6;

    private final CertificateAuthority ca = newCa("Test CA", KeyType.EC_P256);

    @Test
    void caCertificateIsASelfSignedCaThatSignsCertificatesOnly() throws Exception {
        X509Certificate certificate = ca.certificate();

        certificate.verify(certificate.getPublicKey());
        assertThat(certificate.getSubjectX500Principal().getName()).isEqualTo("CN=Test CA");
        assertThat(certificate.getIssuerX500Principal()).isEqualTo(certificate.getSubjectX500Principal());
        assertThat(certificate.getBasicConstraints()).as("CA with pathlen 0").isZero();
        assertThat(certificate.getCriticalExtensionOIDs())
                .contains(Extension.basicConstraints.getId(), Extension.keyUsage.getId());
        assertThat(trueBits(certificate.getKeyUsage())).containsExactly(KEY_CERT_SIGN, CRL_SIGN);
        assertThat(certificate.getExtensionValue(Extension.subjectKeyIdentifier.getId())).isNotNull();
        assertThat(ca.keyType()).isEqualTo(KeyType.EC_P256);
    }

    @Test
    void issuedServerCertificateVerifiesAgainstTheCaAndCarriesSansAndServerAuth() throws Exception {
        IssuedCertificate server = ca.issueServer("localhost", List.of("localhost", "*.edge.test", "127.0.0.1", "::1"),
                KeyType.EC_P256, Validity.days(1));
        X509Certificate certificate = server.certificate();

        certificate.verify(ca.certificate().getPublicKey());
        certificate.checkValidity();
        assertThat(ca.hasIssued(certificate)).isTrue();
        assertThat(certificate.getSubjectX500Principal().getName()).isEqualTo("CN=localhost");
        assertThat(certificate.getIssuerX500Principal()).isEqualTo(ca.certificate().getSubjectX500Principal());
        assertThat(certificate.getSubjectAlternativeNames())
                .extracting(name -> name.get(0), name -> normalise(name))
                .containsExactly(tuple(DNS, "localhost"), tuple(DNS, "*.edge.test"), tuple(IP, "127.0.0.1"),
                        tuple(IP, "0:0:0:0:0:0:0:1"));
        assertThat(certificate.getExtendedKeyUsage()).containsExactly(SERVER_AUTH);
        assertThat(trueBits(certificate.getKeyUsage())).as("EC keys only sign").containsExactly(DIGITAL_SIGNATURE);
        assertThat(certificate.getBasicConstraints()).as("not a CA").isEqualTo(-1);
        assertThat(server.chain()).containsExactly(certificate, ca.certificate());
        assertThat(authorityKeyIdentifier(certificate)).isEqualTo(subjectKeyIdentifier(ca.certificate()));
        assertThat(KeyType.of(certificate.getPublicKey())).isEqualTo(KeyType.EC_P256);
        assertThat(KeyType.EC_P256.matches(server.privateKey(), certificate.getPublicKey())).isTrue();
    }

    @Test
    void rsaServerCertificateMayAlsoEncipherKeys() throws Exception {
        X509Certificate certificate = ca.certify(TestKeys.of(KeyType.RSA_2048).getPublic(),
                CertificateAuthority.Purpose.SERVER, "rsa.test", List.of("rsa.test"), Validity.days(1));

        assertThat(trueBits(certificate.getKeyUsage())).containsExactly(DIGITAL_SIGNATURE, KEY_ENCIPHERMENT);
    }

    @Test
    void clientCertificateCarriesClientAuthAndItsCommonName() throws Exception {
        IssuedCertificate client = ca.issueClient("edge-7", List.of(), KeyType.ED25519, Validity.days(1));
        X509Certificate certificate = client.certificate();

        certificate.verify(ca.certificate().getPublicKey());
        assertThat(certificate.getSubjectX500Principal().getName()).isEqualTo("CN=edge-7");
        assertThat(certificate.getExtendedKeyUsage()).containsExactly(CLIENT_AUTH);
        assertThat(trueBits(certificate.getKeyUsage())).containsExactly(DIGITAL_SIGNATURE);
        assertThat(certificate.getSubjectAlternativeNames()).as("no SANs asked for").isNull();
    }

    @Test
    void clientCertificateMayCarrySans() throws Exception {
        X509Certificate certificate = ca.issueClient("edge-8", List.of("edge-8.internal"), KeyType.EC_P256,
                Validity.days(1)).certificate();

        assertThat(certificate.getSubjectAlternativeNames()).extracting(name -> (Object) name.get(1))
                .containsExactly("edge-8.internal");
    }

    @ParameterizedTest
    @EnumSource(KeyType.class)
    void everyKeyTypeCanBeTheCaAndSignsWithItsAlgorithm(KeyType type) throws Exception {
        CertificateAuthority typed = newCa("CA " + type.cliName(), type);

        X509Certificate leaf = typed.certify(TestKeys.of(KeyType.EC_P256).getPublic(),
                CertificateAuthority.Purpose.CLIENT, "leaf", List.of(), Validity.days(1));

        leaf.verify(typed.certificate().getPublicKey());
        assertThat(leaf.getSigAlgName()).isEqualToIgnoringCase(type.signatureAlgorithm());
        assertThat(typed.certificate().getSigAlgName()).isEqualToIgnoringCase(type.signatureAlgorithm());
    }

    @ParameterizedTest
    @EnumSource(KeyType.class)
    void everyKeyTypeCanBeCertified(KeyType type) throws Exception {
        X509Certificate leaf = ca.certify(TestKeys.of(type).getPublic(), CertificateAuthority.Purpose.SERVER,
                "leaf", List.of("leaf.test"), Validity.days(1));

        leaf.verify(ca.certificate().getPublicKey());
        assertThat(leaf.getPublicKey()).isEqualTo(TestKeys.of(type).getPublic());
    }

    @Test
    void expiredCertificateIsExpired() throws Exception {
        Instant now = Instant.now();
        Validity past = new Validity(now.minus(Duration.ofDays(30)), now.minus(Duration.ofDays(1)));

        X509Certificate certificate = ca.issueServer("old", List.of("old.test"), KeyType.EC_P256, past).certificate();

        assertThatThrownBy(certificate::checkValidity).isInstanceOf(CertificateExpiredException.class);
        assertThat(certificate.getNotBefore().toInstant()).isEqualTo(now.minus(Duration.ofDays(30))
                .truncatedTo(ChronoUnit.SECONDS));
        assertThat(certificate.getNotAfter().toInstant()).isEqualTo(past.notAfter());
    }

    @Test
    void futureCertificateIsNotYetValid() throws Exception {
        Instant now = Instant.now();
        Validity future = new Validity(now.plus(Duration.ofDays(1)), now.plus(Duration.ofDays(2)));

        X509Certificate certificate = ca.issueClient("later", List.of(), KeyType.EC_P256, future).certificate();

        assertThatThrownBy(certificate::checkValidity).isInstanceOf(CertificateNotYetValidException.class);
    }

    @Test
    void serialNumbersArePositiveRandomAndAtMost128Bits() throws Exception {
        Set<BigInteger> serials = new HashSet<>();
        for (int i = 0; i < 20; i++) {
            BigInteger serial = ca.certify(TestKeys.of(KeyType.EC_P256).getPublic(),
                    CertificateAuthority.Purpose.CLIENT, "c" + i, List.of(), Validity.days(1)).getSerialNumber();
            assertThat(serial.signum()).isPositive();
            assertThat(serial.bitLength()).isLessThanOrEqualTo(128);
            serials.add(serial);
        }
        assertThat(serials).hasSize(20);
        assertThat(serials.stream().mapToInt(BigInteger::bitLength).max().orElseThrow())
                .as("random 128-bit numbers rarely all fall short of 120 bits").isGreaterThan(120);
    }

    @Test
    void serverCertificateNeedsASubjectAltName() {
        assertThatThrownBy(() -> ca.issueServer("nameless", List.of(), KeyType.EC_P256, Validity.days(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one DNS or IP subject alt name");
    }

    @Test
    void subjectAltNameMustBeAnIpAddressOrADnsName() {
        assertThatThrownBy(() -> ca.issueServer("bad", List.of("not a host!"), KeyType.EC_P256, Validity.days(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'not a host!' is neither an IP address nor a DNS name");
    }

    @Test
    void loadAcceptsTheCertificateWithItsOwnKey() throws Exception {
        CertificateAuthority loaded = CertificateAuthority.load(ca.certificate(), ca.privateKey());

        X509Certificate leaf = loaded.issueClient("again", List.of(), KeyType.EC_P256, Validity.days(1))
                .certificate();

        assertThat(loaded.keyType()).isEqualTo(KeyType.EC_P256);
        assertThat(ca.hasIssued(leaf)).isTrue();
        assertThat(authorityKeyIdentifier(leaf)).isEqualTo(subjectKeyIdentifier(ca.certificate()));
    }

    @Test
    void loadRejectsAKeyThatIsNotTheCertificates() {
        CertificateAuthority other = newCa("Other CA", KeyType.EC_P256);

        assertThatThrownBy(() -> CertificateAuthority.load(ca.certificate(), other.privateKey()))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessageContaining("does not belong to CA certificate CN=Test CA");
    }

    @Test
    void loadRejectsALeafCertificate() throws Exception {
        IssuedCertificate leaf = ca.issueClient("leaf", List.of(), KeyType.EC_P256, Validity.days(1));

        assertThatThrownBy(() -> CertificateAuthority.load(leaf.certificate(), leaf.privateKey()))
                .isInstanceOf(CertificateException.class)
                .hasMessageContaining("is not a CA certificate");
    }

    @Test
    void aCaHasNotIssuedAnotherCasCertificates() throws Exception {
        CertificateAuthority other = newCa("Other CA", KeyType.EC_P256);

        X509Certificate foreign = other.issueClient("x", List.of(), KeyType.EC_P256, Validity.days(1)).certificate();

        assertThat(ca.hasIssued(foreign)).isFalse();
        assertThat(ca.hasIssued(ca.certificate())).as("self-signed").isTrue();
    }

    @Test
    void issuedCertificateToStringShowsNoKeyMaterial() throws Exception {
        IssuedCertificate issued = CertificateAuthority.create("RSA CA", TestKeys.of(KeyType.RSA_2048),
                Validity.days(1)).issueClient("secretive", List.of(), KeyType.RSA_2048, Validity.days(1));
        RSAPrivateCrtKey key = (RSAPrivateCrtKey) issued.privateKey();

        assertThat(issued.toString()).contains("CN=secretive", "RSA key")
                .doesNotContain(key.getPrivateExponent().toString(16))
                .doesNotContain(key.getPrivateExponent().toString());
    }

    static CertificateAuthority newCa(String name, KeyType type) {
        try {
            return CertificateAuthority.create(name, type == KeyType.EC_P256 ? type.generate() : TestKeys.of(type),
                    Validity.days(1));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static List<Integer> trueBits(boolean[] bits) {
        return IntStream.range(0, bits.length).filter(i -> bits[i]).boxed().toList();
    }

    private static Object normalise(List<?> name) {
        return name.get(0).equals(IP) ? hostAddress((String) name.get(1)) : name.get(1);
    }

    private static String hostAddress(String literal) {
        try {
            return InetAddress.getByName(literal).getHostAddress();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static byte[] subjectKeyIdentifier(X509Certificate certificate) {
        byte[] extension = certificate.getExtensionValue(Extension.subjectKeyIdentifier.getId());
        return ASN1OctetString.getInstance(ASN1OctetString.getInstance(extension).getOctets()).getOctets();
    }

    private static byte[] authorityKeyIdentifier(X509Certificate certificate) {
        byte[] extension = certificate.getExtensionValue(Extension.authorityKeyIdentifier.getId());
        return AuthorityKeyIdentifier.getInstance(ASN1OctetString.getInstance(extension).getOctets())
                .getKeyIdentifierOctets();
    }
}

// KeyIdsTest -- every identifier form against values computed independently with the openssl command line.
package io.elastikey.protocol.pki;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.cert.X509Certificate;
import java.util.List;

import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.x509.Extension;
import org.junit.jupiter.api.Test;

/**
 * The expected values were computed with OpenSSL 3, not with this code:
 * <pre>
 * openssl x509 -in C.pem -noout -fingerprint -sha1                                   # certificate SHA-1
 * openssl x509 -in C.pem -pubkey -noout | openssl pkey -pubin -outform DER | openssl dgst -sha256  # key ID
 * openssl x509 -in C.pem -noout -ext subjectKeyIdentifier                            # Keyless SKI
 * openssl x509 -in C.pem -noout -modulus | sed 's/Modulus=//' | tr -d '\n' | openssl dgst -sha256
 * </pre>
 * The certificates are self-signed ones from {@code openssl req -x509}, whose subject key identifier is the SHA-1
 * of the public key bit string (for Ed25519 it was also checked as {@code tail -c 32 spki.der | openssl dgst -sha1}).
 */
class KeyIdsTest {
    static final String RSA_CERTIFICATE =
            "-----BEGIN CERTIFICATE-----\n" +
            "MIIDFzCCAf+gAwIBAgIUIazWARncclLoS/PDqFzBJUgXvdkwDQYJKoZIhvcNAQEL\n" +
            "BQAwGjEYMBYGA1UEAwwPcnNhLnZlY3Rvci50ZXN0MCAXDTI2MTEyMTE1NTgyOVoY\n" +
            "DzIxMjYxMDI4MTU1ODI5WjAaMRgwFgYDVQQDDA9yc2EudmVjdG9yLnRlc3QwggEi\n" +
            "MA0GCSqGSIb3DQEBAQUAA4IBDwAwggEKAoIBAQC7xb4+paNs0T/b/pa+8IN4SqFk\n" +
            "udanlp5M+v2yZvHefbNE78o6BTTRAo5n0p2/r9AKzIWVdHocTmuBo60wSsAQWv5C\n" +
            "u/tFyJN+B+R3OQNZfCg/tTOO0OsC371xMCYfplYISEEsctKxfVei6SC1Tf2dXQyo\n" +
            "SIeweyedqOAXI21HktePq9MQ9jsS1nOA47/50pTt0LXhDNPoJ0pbBXCKxp+tOX2l\n" +
            "i+4ifFMkMzOjebeLfSNiJrkakQysmi5CBqLcL/myPNGsK4b614LMbs36yQSwKHut\n" +
            "WnvQZGK3VRtBmDpDWFguO4X/2ls4hZIXuX2QQU/nqL/Lx7Z0OYF9uKlxeq9TAgMB\n" +
            "AAGjUzBRMB0GA1UdDgQWBBQ8i9x81BDd4QNy3CbqGdICT9GDEzAfBgNVHSMEGDAW\n" +
            "gBQ8i9x81BDd4QNy3CbqGdICT9GDEzAPBgNVHRMBAf8EBTADAQH/MA0GCSqGSIb3\n" +
            "DQEBCwUAA4IBAQB0ni5m7bd1ynRT7XDocPvFqNp1I5QQlsI5gNuk3jF9Da4eSOOt\n" +
            "/YJH5PjLTcTbjNJdATMhh94Srt8udCbn7i2TAzdccRsywmx9am3S0aBVibYkYaPq\n" +
            "XYYt63iKb3bgfEaf/g0R8Lg4+hawhedA2G6NOdIwwq+XjP+VX/Wi6qrqQ2BWMI0r\n" +
            "KfffpruaHHa5nBmIPvUVreQuBvDN2KAdQI5TjcAFg4Llhqf9pv7EMDBjbWcPOC6Z\n" +
            "M8iaTZq7p1rqWd89pheqgCnGxYqh/L+Sn1g+gKmwN/f6DVjI0r/qg0ecs3ZthqZ5\n" +
            "zLs6mYCV08/qRcM5iJDVVcO+IyMPlBBN5vYX\n" +
            "-----END CERTIFICATE-----\n";
    static final String EC_CERTIFICATE =
            "-----BEGIN CERTIFICATE-----\n" +
            "MIIBiDCCAS+gAwIBAgIUPchyC/Q0zK1ehwlh5HAQUzKxiBcwCgYIKoZIzj0EAwIw\n" +
            "GTEXMBUGA1UEAwwOZWMudmVjdG9yLnRlc3QwIBcNMjYxMTIxMTU1ODI5WhgPMjEy\n" +
            "NjEwMjgxNTU4MjlaMBkxFzAVBgNVBAMMDmVjLnZlY3Rvci50ZXN0MFkwEwYHKoZI\n" +
            "zj0CAQYIKoZIzj0DAQcDQgAE1ePAam6DSbh5e1hv0UkTKiSNqx2rcvTlJ0bFbHYj\n" +
            "AK0MH/wrhwUNZNhW0EgaTrnRHezF9WJcTiAXLbVVErZAx6NTMFEwHQYDVR0OBBYE\n" +
            "FMTgvE64GH/pLd0nvP+9rzTJca5mMB8GA1UdIwQYMBaAFMTgvE64GH/pLd0nvP+9\n" +
            "rzTJca5mMA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDRwAwRAIgJBibMJKq\n" +
            "4jNfcHl6JdHFDCRsQLOFgDLej9upfO53XdYCIHQU3qYYpL8QQvhbQ9tYtXk5MAlV\n" +
            "TCodsP8R2EyB3tNZ\n" +
            "-----END CERTIFICATE-----\n";
    static final String ED25519_CERTIFICATE =
            "-----BEGIN CERTIFICATE-----\n" +
            "MIIBSDCB+6ADAgECAhRO+ZNKomXfe/O85hKOu+DptutP5DAFBgMrZXAwGTEXMBUG\n" +
            "A1UEAwwOZWQudmVjdG9yLnRlc3QwIBcNMjYxMTIxMTU1ODMzWhgPMjEyNjEwMjgx\n" +
            "NTU4MzNaMBkxFzAVBgNVBAMMDmVkLnZlY3Rvci50ZXN0MCowBQYDK2VwAyEASJ/o\n" +
            "XPxVsT5Oz+oMgG3ED8nkHMU9YoWTJmOzM9iyTjSjUzBRMB0GA1UdDgQWBBTcEQuG\n" +
            "8vYJuhWgCspt1gT8f+88STAfBgNVHSMEGDAWgBTcEQuG8vYJuhWgCspt1gT8f+88\n" +
            "STAPBgNVHRMBAf8EBTADAQH/MAUGAytlcANBAG1Tb39KcArKfL4tgVuHYxw9teYS\n" +
            "6hNOq/O0XYV6cB9B1TQC2px/19SYyf/V5oNNj4L7FW6j2iIuhULDKZDgxgI=\n" +
            "-----END CERTIFICATE-----\n";

    @Test
    void rsaCertificateMatchesOpenssl() throws Exception {
        X509Certificate c = Pem.readCertificate(RSA_CERTIFICATE);
        assertThat(KeyIds.hex(KeyIds.certificateSha1(c))).isEqualTo("cc4cb35aee83f07aa552fa0a773d81b49211f4b3");
        assertThat(KeyIds.keyId(c.getPublicKey()))
                .isEqualTo("2131616ded14740d0470cfe2bbce3569b3ca3d36cf56a4cd7956154874b643d9");
        assertThat(KeyIds.hex(KeyIds.keylessSki(c.getPublicKey())))
                .isEqualTo("3c8bdc7cd410dde10372dc26ea19d2024fd18313");
        assertThat(KeyIds.hex(KeyIds.modulusDigest(c.getPublicKey())))
                .isEqualTo("a5c547260426c79024976071f06b038a9baf7483bc14eb407a7a68d4017d1a1b");
    }

    @Test
    void ecCertificateMatchesOpenssl() throws Exception {
        X509Certificate c = Pem.readCertificate(EC_CERTIFICATE);
        assertThat(KeyIds.hex(KeyIds.certificateSha1(c))).isEqualTo("03839c26803710762b62dfe18232532cfcef9d7e");
        assertThat(KeyIds.keyId(c.getPublicKey()))
                .isEqualTo("023588198a7a7ebb90cc23897940c4430d63f95530b5bac9241245f826a1994a");
        assertThat(KeyIds.hex(KeyIds.keylessSki(c.getPublicKey())))
                .isEqualTo("c4e0bc4eb8187fe92ddd27bcffbdaf34c971ae66");
    }

    @Test
    void ed25519CertificateMatchesOpenssl() throws Exception {
        X509Certificate c = Pem.readCertificate(ED25519_CERTIFICATE);
        assertThat(KeyIds.hex(KeyIds.certificateSha1(c))).isEqualTo("4ed39809fa104cc30eef8f6c67c6f411d2a12576");
        assertThat(KeyIds.keyId(c.getPublicKey()))
                .isEqualTo("192927179433ce83ae8378afa992e28216b0114ffede03cc681bc9d7a2c7b6c2");
        assertThat(KeyIds.hex(KeyIds.keylessSki(c.getPublicKey())))
                .isEqualTo("dc110b86f2f609ba15a00aca6dd604fc7fef3c49");
    }

    @Test
    void modulusDigestIsOnlyForRsa() throws Exception {
        X509Certificate c = Pem.readCertificate(EC_CERTIFICATE);
        assertThatThrownBy(() -> KeyIds.modulusDigest(c.getPublicKey()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("RSA");
    }

    @Test
    void normalizeLowersEitherCase() {
        assertThat(KeyIds.normalize("CC4CB35AEE83F07AA552FA0A773D81B49211F4B3"))
                .isEqualTo("cc4cb35aee83f07aa552fa0a773d81b49211f4b3");
        assertThat(KeyIds.normalize("2131616DED14740d0470cfe2bbce3569b3ca3d36cf56a4cd7956154874b643d9"))
                .isEqualTo("2131616ded14740d0470cfe2bbce3569b3ca3d36cf56a4cd7956154874b643d9");
        assertThat(KeyIds.parse("CC4CB35AEE83F07AA552FA0A773D81B49211F4B3")).hasSize(20).startsWith((byte) 0xcc);
    }

    @Test
    void normalizeRejectsNonHexWithoutEchoingTheInput() {
        String colons = "CC:4C:B3:5A:EE:83:F0:7A:A5:52:FA:0A:77:3D:81:B4:92:11:F4:B3";
        assertThatThrownBy(() -> KeyIds.normalize(colons)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not 59 characters").hasMessageNotContaining("CC:4C");
        String g = "g" + "0".repeat(39);
        assertThatThrownBy(() -> KeyIds.normalize(g)).hasMessageContaining("character 1 of 40");
        String fullWidthDigit = "\uff10" + "0".repeat(39);
        assertThatThrownBy(() -> KeyIds.normalize(fullWidthDigit)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> KeyIds.normalize("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> KeyIds.normalize(null)).isInstanceOf(IllegalArgumentException.class);
    }

    /** Bouncy Castle's RFC 5280 method 1, which the dev CA writes into certificates, is the Keyless SKI. */
    @Test
    void keylessSkiIsTheSubjectKeyIdentifierOfEveryKeyType() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create("ids", TestKeys.of(KeyType.EC_P256), Validity.days(1));
        for (KeyType type : KeyType.values()) {
            X509Certificate c = ca.certify(TestKeys.of(type).getPublic(), CertificateAuthority.Purpose.SERVER,
                    "ids.test", List.of("ids.test"), Validity.days(1));
            byte[] extension = c.getExtensionValue(Extension.subjectKeyIdentifier.getId());
            byte[] ski = ASN1OctetString.getInstance(ASN1OctetString.getInstance(extension).getOctets()).getOctets();
            assertThat(KeyIds.keylessSki(c.getPublicKey())).as(type.cliName()).isEqualTo(ski);
            assertThat(KeyIds.spkiSha256(c.getPublicKey())).hasSize(KeyIds.SHA256_LENGTH);
        }
    }
}

// ClientIdentityTest -- what a client certificate tells authorization and audit about its holder.
package io.elastikey.keyserver.authz;

import static io.elastikey.keyserver.authz.TestCertificates.certificate;
import static io.elastikey.keyserver.authz.TestCertificates.client;
import static io.elastikey.keyserver.authz.TestCertificates.dns;
import static io.elastikey.keyserver.authz.TestCertificates.email;
import static io.elastikey.keyserver.authz.TestCertificates.ip;
import static io.elastikey.keyserver.authz.TestCertificates.uri;
import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.protocol.pki.CertificateAuthority;
import io.elastikey.protocol.pki.IssuedCertificate;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.Validity;

import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.List;

import org.junit.jupiter.api.Test;

class ClientIdentityTest {

    @Test
    void fingerprintIsTheLowerCaseHexSha256OfTheDerCertificate() throws Exception {
        X509Certificate certificate = certificate("CN=edge-1");

        ClientIdentity identity = ClientIdentity.of(certificate);

        String expected = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(certificate.getEncoded()));
        assertThat(identity.fingerprint()).isEqualTo(expected).matches("[0-9a-f]{64}");
    }

    @Test
    void readsCommonNameAndEveryKindOfSubjectAltName() throws Exception {
        ClientIdentity identity = client("CN=Edge EU 1,O=Example", dns("Edge1.EU.Example.NET"),
                ip("192.0.2.7"), ip("2001:db8::1"), uri("spiffe://example.org/edge/eu-1"),
                email("Ops@Example.ORG"));

        assertThat(identity.commonName()).contains("Edge EU 1");
        assertThat(identity.dnsNames()).containsExactly("edge1.eu.example.net");
        assertThat(identity.ipAddresses()).containsExactly("192.0.2.7", "2001:db8:0:0:0:0:0:1");
        assertThat(identity.uris()).containsExactly("spiffe://example.org/edge/eu-1");
        assertThat(identity.emails()).containsExactly("Ops@example.org");
    }

    @Test
    void readsTheIdentityOfACertificateFromTheDevelopmentCa() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create("Test CA", KeyType.EC_P256, Validity.days(1));
        IssuedCertificate issued = ca.issueClient("edge-eu-1", List.of("edge-eu-1.example.net", "10.0.0.5"),
                KeyType.EC_P256, Validity.days(1));

        ClientIdentity identity = ClientIdentity.of(issued.certificate());

        assertThat(identity.commonName()).contains("edge-eu-1");
        assertThat(identity.dnsNames()).containsExactly("edge-eu-1.example.net");
        assertThat(identity.ipAddresses()).containsExactly("10.0.0.5");
    }

    @Test
    void commonNameIsTheMostSpecificOfSeveral() throws Exception {
        // In RFC 2253 order the most specific RDN comes first.
        ClientIdentity identity = client("CN=edge-1,CN=edges,O=Example");

        assertThat(identity.commonName()).contains("edge-1");
    }

    @Test
    void certificateWithoutCommonNameOrAltNamesHasOnlyAFingerprint() throws Exception {
        ClientIdentity identity = client("O=Example");

        assertThat(identity.commonName()).isEmpty();
        assertThat(identity.dnsNames()).isEmpty();
        assertThat(identity.shortName()).isEqualTo(identity.fingerprint().substring(0, 16));
    }

    @Test
    void shortNameIsCommonNameAndFingerprintPrefix() throws Exception {
        ClientIdentity identity = client("CN=edge-eu-1", dns("other.example.net"));

        assertThat(identity.shortName()).isEqualTo("edge-eu-1/" + identity.fingerprint().substring(0, 16));
        assertThat(identity).hasToString(identity.shortName());
    }

    @Test
    void shortNameFallsBackToTheFirstDnsName() throws Exception {
        ClientIdentity identity = client("O=Example", uri("spiffe://example.org/x"), dns("edge.example.net"));

        assertThat(identity.shortName()).startsWith("edge.example.net/");
    }

    @Test
    void shortNameIsBoundedAndPrintable() throws Exception {
        ClientIdentity identity = client("CN=" + "x".repeat(100) + "\u0007\nend");

        String name = identity.shortName().substring(0, identity.shortName().indexOf('/'));
        assertThat(name).hasSize(64).isEqualTo("x".repeat(64));
        ClientIdentity controls = client("CN=a\u0007b\nc");
        assertThat(controls.shortName()).startsWith("a?b?c/");
    }

    @Test
    void identitiesAreEqualExactlyWhenTheirCertificatesAre() throws Exception {
        X509Certificate certificate = certificate("CN=edge-1");

        assertThat(ClientIdentity.of(certificate)).isEqualTo(ClientIdentity.of(certificate))
                .hasSameHashCodeAs(ClientIdentity.of(certificate));
        assertThat(ClientIdentity.of(certificate)).isNotEqualTo(client("CN=edge-1"));
    }
}

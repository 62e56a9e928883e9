// AccessPolicyTest -- which clients a policy picks, what it grants them, and that everything else is denied.
package io.elastikey.keyserver.authz;

import static io.elastikey.keyserver.authz.TestCertificates.certificate;
import static io.elastikey.keyserver.authz.TestCertificates.client;
import static io.elastikey.keyserver.authz.TestCertificates.dns;
import static io.elastikey.keyserver.authz.TestCertificates.email;
import static io.elastikey.keyserver.authz.TestCertificates.ip;
import static io.elastikey.keyserver.authz.TestCertificates.key;
import static io.elastikey.keyserver.authz.TestCertificates.keyId;
import static io.elastikey.keyserver.authz.TestCertificates.uri;
import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.keyserver.keys.LoadedKey;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AccessPolicyTest {
    /** A key every test grants through its rule, so "does the client match" is "may it use this key". */
    private static final LoadedKey MARKER = key(keyId('a'), Set.of(), List.of());
    private static final LoadedKey OTHER = key(keyId('b'), Set.of("other"), List.of("other.example"));

    @TempDir
    Path temp;

    // ---- client selectors ----

    @Test
    void fingerprintSelectorMatchesInOpensslFormat() throws Exception {
        X509Certificate certificate = certificate("CN=edge-1");
        ClientIdentity identity = ClientIdentity.of(certificate);
        String opensslForm = String.join(":", identity.fingerprint().toUpperCase(Locale.ROOT).split("(?<=\\G..)"));

        AccessPolicy policy = policyFor("client fingerprint " + opensslForm);

        assertThat(policy.grantsFor(identity).permits(MARKER)).isTrue();
        assertThat(policy.grantsFor(client("CN=edge-1")).permits(MARKER)).as("same CN, other certificate")
                .isFalse();
    }

    @Test
    void commonNameSelectorMatchesTheWholeNameExactly() throws Exception {
        AccessPolicy policy = policyFor("client cn Edge EU 1");

        assertThat(permitted(policy, client("CN=Edge EU 1"))).isTrue();
        assertThat(permitted(policy, client("CN=edge eu 1"))).isFalse();
        assertThat(permitted(policy, client("CN=Edge EU 10"))).isFalse();
        assertThat(permitted(policy, client("O=Edge EU 1"))).isFalse();
    }

    @Test
    void dnsSelectorMatchesASubjectAltNameWithoutRegardToCase() throws Exception {
        AccessPolicy policy = policyFor("client dns Edge1.Example.NET");

        assertThat(permitted(policy, client("CN=x", dns("other.example.net"), dns("edge1.example.net")))).isTrue();
        assertThat(permitted(policy, client("CN=edge1.example.net"))).as("a CN is not a DNS name").isFalse();
    }

    @Test
    void dnsWildcardSelectorMatchesExactlyOneLabel() throws Exception {
        AccessPolicy policy = policyFor("client dns *.edge.example.net");

        assertThat(permitted(policy, client("CN=x", dns("eu1.edge.example.net")))).isTrue();
        assertThat(permitted(policy, client("CN=x", dns("edge.example.net")))).as("bare domain").isFalse();
        assertThat(permitted(policy, client("CN=x", dns("a.eu1.edge.example.net")))).as("two labels").isFalse();
        assertThat(permitted(policy, client("CN=x", dns("eu1.edge.example.net.evil")))).isFalse();
    }

    @Test
    void ipSelectorComparesAddressesNotSpellings() throws Exception {
        AccessPolicy policy = policyFor("client ip 2001:DB8:0::7\n  client ip 192.0.2.7");

        assertThat(permitted(policy, client("CN=x", ip("2001:db8::7")))).isTrue();
        assertThat(permitted(policy, client("CN=x", ip("192.0.2.7")))).isTrue();
        assertThat(permitted(policy, client("CN=x", ip("192.0.2.8")))).isFalse();
    }

    @Test
    void uriSelectorMatchesExactly() throws Exception {
        AccessPolicy policy = policyFor("client uri spiffe://example.org/edge/eu-1");

        assertThat(permitted(policy, client("CN=x", uri("spiffe://example.org/edge/eu-1")))).isTrue();
        assertThat(permitted(policy, client("CN=x", uri("spiffe://example.org/edge/eu-12")))).isFalse();
    }

    @Test
    void emailSelectorIgnoresTheCaseOfTheDomainOnly() throws Exception {
        AccessPolicy policy = policyFor("client email ops@Example.org");

        assertThat(permitted(policy, client("CN=x", email("ops@example.ORG")))).isTrue();
        assertThat(permitted(policy, client("CN=x", email("OPS@example.org")))).isFalse();
    }

    // ---- grants ----

    @Test
    void keyGrantPermitsThatKeyOnly() throws Exception {
        Grants grants = grants("allow key " + keyId('C'));

        assertThat(grants.permits(key(keyId('c'), Set.of(), List.of()))).isTrue();
        assertThat(grants.permits(key(keyId('d'), Set.of(), List.of()))).isFalse();
    }

    @Test
    void tagGrantPermitsKeysCarryingTheTag() throws Exception {
        Grants grants = grants("allow tag production");

        assertThat(grants.permits(key(keyId('c'), Set.of("eu", "production"), List.of()))).isTrue();
        assertThat(grants.permits(key(keyId('d'), Set.of("staging"), List.of()))).isFalse();
        assertThat(grants.permits(key(keyId('e'), Set.of("Production"), List.of()))).as("tags are exact")
                .isFalse();
    }

    @Test
    void domainGrantPermitsKeysForThatName() throws Exception {
        Grants grants = grants("allow domain Shop.Example");

        assertThat(grants.permits(key(keyId('c'), Set.of(), List.of("shop.example")))).isTrue();
        assertThat(grants.permits(key(keyId('d'), Set.of(), List.of("www.shop.example")))).isFalse();
    }

    @Test
    void wildcardDomainGrantCoversOneLabelAndNotTheBareDomain() throws Exception {
        Grants grants = grants("allow domain *.shop.example");

        assertThat(grants.permits(key(keyId('c'), Set.of(), List.of("www.shop.example")))).isTrue();
        assertThat(grants.permits(key(keyId('d'), Set.of(), List.of("shop.example")))).as("bare").isFalse();
        assertThat(grants.permits(key(keyId('e'), Set.of(), List.of("a.www.shop.example")))).as("deeper")
                .isFalse();
        assertThat(grants.permits(key(keyId('f'), Set.of(), List.of("*.shop.example")))).as("wildcard cert")
                .isTrue();
    }

    @Test
    void exactDomainGrantDoesNotCoverAWildcardCertificate() throws Exception {
        Grants grants = grants("allow domain www.shop.example");

        assertThat(grants.permits(key(keyId('c'), Set.of(), List.of("*.shop.example")))).isFalse();
    }

    @Test
    void domainGrantsMustCoverEveryNameOfTheKey() throws Exception {
        Grants grants = grants("allow domain shop.example\n  allow domain *.shop.example");

        assertThat(grants.permits(key(keyId('c'), Set.of(), List.of("shop.example", "www.shop.example"))))
                .isTrue();
        assertThat(grants.permits(key(keyId('d'), Set.of(), List.of("shop.example", "bank.example"))))
                .isFalse();
    }

    @Test
    void keyWithoutNamesIsNeverPermittedByDomain() throws Exception {
        assertThat(grants("allow domain shop.example").permits(key(keyId('c'), Set.of(), List.of()))).isFalse();
    }

    @Test
    void allGrantPermitsEveryKey() throws Exception {
        Grants grants = grants("allow all");

        assertThat(grants.permits(MARKER)).isTrue();
        assertThat(grants.permits(OTHER)).isTrue();
    }

    // ---- default deny and combinations ----

    @Test
    void clientMatchingNoRuleIsDeniedEveryKey() throws Exception {
        AccessPolicy policy = AccessPolicy.parse("test", """
                rule admins
                  client cn admin
                  allow all
                """);

        Grants grants = policy.grantsFor(client("CN=stranger", dns("stranger.example")));

        assertThat(grants).isSameAs(Grants.none());
        assertThat(grants.isEmpty()).isTrue();
        assertThat(grants.permits(MARKER)).isFalse();
        assertThat(grants.permits(OTHER)).isFalse();
    }

    @Test
    void emptyPolicyAndDenyAllDenyEveryone() throws Exception {
        for (AccessPolicy policy : List.of(AccessPolicy.parse("empty", "# nothing yet\n"), AccessPolicy.denyAll())) {
            assertThat(policy.ruleCount()).isZero();
            assertThat(policy.grantsFor(client("CN=admin")).permits(MARKER)).isFalse();
        }
    }

    @Test
    void clientMatchingSeveralRulesGetsTheUnionOfTheirGrants() throws Exception {
        AccessPolicy policy = AccessPolicy.parse("test", """
                rule by-name
                  client cn edge-1
                  allow tag eu
                rule by-domain
                  client dns *.edge.example.net
                  allow key %s
                rule unrelated
                  client cn edge-2
                  allow all
                """.formatted(keyId('c')));

        Grants grants = policy.grantsFor(client("CN=edge-1", dns("n1.edge.example.net")));

        assertThat(grants.ruleNames()).containsExactly("by-name", "by-domain");
        assertThat(grants.permits(key(keyId('d'), Set.of("eu"), List.of()))).isTrue();
        assertThat(grants.permits(key(keyId('c'), Set.of(), List.of()))).isTrue();
        assertThat(grants.permits(key(keyId('e'), Set.of("us"), List.of()))).isFalse();
    }

    @Test
    void ruleMatchedBySeveralSelectorsCountsOnce() throws Exception {
        AccessPolicy policy = AccessPolicy.parse("test", """
                rule edge
                  client cn edge-1
                  client dns edge-1.example.net
                  allow tag eu
                """);

        Grants grants = policy.grantsFor(client("CN=edge-1", dns("edge-1.example.net")));

        assertThat(grants.ruleNames()).containsExactly("edge");
    }

    @Test
    void loadsAFileWithByteOrderMarkCommentsIndentationAndWindowsLineEndings() throws Exception {
        Path file = temp.resolve("policy.conf");
        Files.writeString(file, "\uFEFFrule first\r\n  client cn x\r\n  allow all\r\n"
                + "# Elastikey policy\r\n\r\nrule edge\r\n\tclient cn edge-1\r\n"
                + "    # the EU keys\r\n    allow tag eu\r\n");

        AccessPolicy policy = AccessPolicy.load(file);

        assertThat(policy.ruleCount()).isEqualTo(2);
        assertThat(policy.source()).isEqualTo(file.toString());
        assertThat(policy.grantsFor(client("CN=edge-1")).permits(key(keyId('c'), Set.of("eu"), List.of())))
                .isTrue();
    }

    /** A one-rule policy whose rule picks clients by {@code clientLines} and grants {@link #MARKER}. */
    private static AccessPolicy policyFor(String clientLines) throws PolicyFormatException {
        return AccessPolicy.parse("test", "rule r\n  " + clientLines + "\n  allow key " + MARKER.keyId() + "\n");
    }

    private static boolean permitted(AccessPolicy policy, ClientIdentity client) {
        return policy.grantsFor(client).permits(MARKER);
    }

    /** The grants of a one-rule policy with {@code allowLines}, for a client it picks. */
    private static Grants grants(String allowLines) throws Exception {
        AccessPolicy policy = AccessPolicy.parse("test", "rule r\n  client cn c\n  " + allowLines + "\n");
        return policy.grantsFor(client("CN=c"));
    }
}

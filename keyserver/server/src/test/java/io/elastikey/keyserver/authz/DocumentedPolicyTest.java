// DocumentedPolicyTest -- the example policy in docs/authorization.md parses and means what the text says.
package io.elastikey.keyserver.authz;

import static io.elastikey.keyserver.authz.TestCertificates.client;
import static io.elastikey.keyserver.authz.TestCertificates.dns;
import static io.elastikey.keyserver.authz.TestCertificates.key;
import static io.elastikey.keyserver.authz.TestCertificates.keyId;
import static io.elastikey.keyserver.authz.TestCertificates.uri;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class DocumentedPolicyTest {
    /** Tests run in the module directory, keyserver/server. */
    private static final Path DOC = Path.of("../../docs/authorization.md");

    private static AccessPolicy policy;

    @BeforeAll
    static void parseTheExample() throws Exception {
        String doc = Files.readString(DOC);
        int section = doc.indexOf("## The policy file");
        int start = doc.indexOf("```\n", section) + 4;
        policy = AccessPolicy.parse(DOC.toString(), doc.substring(start, doc.indexOf("```", start)));
    }

    @Test
    void exampleHasItsThreeRules() {
        assertThat(policy.ruleCount()).isEqualTo(3);
    }

    @Test
    void edgeFleetGetsShopKeysAndSharedKeysOnly() throws Exception {
        Grants edge = policy.grantsFor(client("CN=whatever", dns("n7.edge-eu.example.net")));

        assertThat(edge.ruleNames()).containsExactly("edge-eu");
        assertThat(edge.permits(key(keyId('1'), Set.of(), List.of("shop.example", "www.shop.example")))).isTrue();
        assertThat(edge.permits(key(keyId('2'), Set.of("eu-shared"), List.of("other.example")))).isTrue();
        assertThat(edge.permits(key(keyId('3'), Set.of(), List.of("shop.example", "bank.example")))).isFalse();
        assertThat(policy.grantsFor(client("CN=Edge EU legacy 1")).ruleNames()).containsExactly("edge-eu");
    }

    @Test
    void billingWorkloadGetsItsOneKey() throws Exception {
        Grants billing = policy.grantsFor(client("O=Example", uri("spiffe://example.net/billing/tls")));

        assertThat(billing.permits(key("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
                Set.of(), List.of()))).isTrue();
        assertThat(billing.permits(key(keyId('4'), Set.of("eu-shared"), List.of("shop.example")))).isFalse();
    }
}

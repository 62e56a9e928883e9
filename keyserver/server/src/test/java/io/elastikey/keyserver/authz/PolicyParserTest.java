// PolicyParserTest -- malformed policy files: every error found, each reported with its line number.
package io.elastikey.keyserver.authz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.elastikey.keyserver.authz.PolicyFormatException.Problem;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PolicyParserTest {
    @TempDir
    Path temp;

    /** Each bad line sits on line 3 of an otherwise valid rule; the message must name what is wrong. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            deny all                                  | unknown statement 'deny'
            client                                    | 'client' needs a selector and a value
            client cname edge-1                       | unknown client selector 'cname'
            client cn                                 | 'client cn' needs a value
            client fingerprint 3a7b                   | 'client fingerprint' needs a SHA-256 certificate fingerprint
            client dns *.com                          | 'client dns' needs a DNS name
            client dns a.*.example.com                | 'client dns' needs a DNS name
            client dns foo..example.com               | 'client dns' needs a DNS name
            client dns edge.example.com edge2         | 'client dns' takes one value
            client ip 192.0.2.256                     | 'client ip' needs an IPv4 or IPv6 address
            client ip example.com                     | 'client ip' needs an IPv4 or IPv6 address
            client email ops                          | 'client email' needs an e-mail address
            allow                                     | 'allow' needs what it grants
            allow everything                          | unknown grant 'allow everything'
            allow all keys                            | 'allow all' takes no value
            allow key 1234                            | 'allow key' needs a key ID: 64 hex digits
            allow tag                                 | 'allow tag' needs a value
            allow tag production # the prod keys      | 'allow tag' takes one value
            allow domain *                            | 'allow domain' needs a DNS name
            allow domain *.example                    | 'allow domain' needs a DNS name
            allow domain shop_example!.com            | 'allow domain' needs a DNS name
            """)
    void reportsABadLineWithItsNumber(String line, String message) {
        String text = "rule r\n  client cn c\n  " + line + "\n  allow tag t\n";

        PolicyFormatException e = catchThrowableOfType(() -> AccessPolicy.parse("policy.conf", text),
                PolicyFormatException.class);

        assertThat(e).as("no error for '%s'", line).isNotNull();
        assertThat(e.problems()).hasSize(1);
        assertThat(e.problems().get(0).line()).isEqualTo(3);
        assertThat(e.problems().get(0).message()).contains(message);
        assertThat(e).hasMessageStartingWith("policy.conf:3: ");
    }

    @Test
    void ruleWithoutClientOrAllowLinesIsReportedAtItsRuleLine() {
        String text = """
                rule no-clients
                  allow all

                rule no-grants
                  client cn c
                """;

        PolicyFormatException e = catchThrowableOfType(() -> AccessPolicy.parse("p", text),
                PolicyFormatException.class);

        assertThat(e.problems()).containsExactly(
                new Problem(1, "rule 'no-clients' has no client line, so no client can match it"),
                new Problem(4, "rule 'no-grants' has no allow line, so it grants nothing"));
    }

    @Test
    void ruleNamesMustBeValidAndUnique() {
        String text = """
                rule edge
                  client cn a
                  allow all
                rule edge
                  client cn b
                  allow all
                rule
                  client cn c
                  allow all
                rule two words
                  client cn d
                  allow all
                """;

        PolicyFormatException e = catchThrowableOfType(() -> AccessPolicy.parse("p", text),
                PolicyFormatException.class);

        assertThat(e.problems()).extracting(Problem::line).containsExactly(4, 7, 10);
        assertThat(e.problems().get(0).message()).contains("defined twice");
        assertThat(e.problems().get(1).message()).contains("a rule needs one name");
    }

    @Test
    void statementsBeforeTheFirstRuleAreReportedOnce() {
        String text = """
                client cn a
                allow all
                rule r
                  client cn b
                  allow all
                """;

        PolicyFormatException e = catchThrowableOfType(() -> AccessPolicy.parse("p", text),
                PolicyFormatException.class);

        assertThat(e.problems()).containsExactly(
                new Problem(1, "'client' before any rule; start a rule with 'rule NAME'"));
    }

    @Test
    void everyErrorInAFileIsReportedInOneExceptionInLineOrder() throws Exception {
        Path file = temp.resolve("policy.conf");
        Files.writeString(file, """
                # three mistakes
                rule r
                  client dns *.com
                  allow tag ok
                  allow key nope
                rule s
                  clients cn x
                  allow all
                """);

        assertThatThrownBy(() -> AccessPolicy.load(file))
                .isInstanceOf(PolicyFormatException.class)
                .hasMessageStartingWith("invalid access policy " + file + " (3 errors):")
                .hasMessageContaining("\n" + file + ":3: 'client dns'")
                .hasMessageContaining("\n" + file + ":5: 'allow key'")
                .hasMessageContaining("\n" + file + ":7: unknown statement 'clients'")
                .satisfies(e -> assertThat(((PolicyFormatException) e).source()).isEqualTo(file.toString()))
                .satisfies(e -> assertThat(((PolicyFormatException) e).problems()).extracting(Problem::line)
                        .as("a misspelt line does not also report its rule as empty").containsExactly(3, 5, 7));
    }

    @Test
    void fileThatIsNotUtf8IsRefusedWithItsName() throws Exception {
        Path file = temp.resolve("latin1.conf");
        Files.write(file, new byte[] {'r', 'u', 'l', 'e', ' ', (byte) 0xE9, '\n'});

        assertThatThrownBy(() -> AccessPolicy.load(file)).hasMessageContaining(file + ": a policy file must be UTF-8");
    }
}

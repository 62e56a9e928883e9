// DevelopmentPolicyTest -- an allow-all policy is written only when asked (dev = true), never at a path that was given.
package io.elastikey.keyserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.protocol.config.ConfigException;
import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.protocol.pki.KeyType;

import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The key server on the development PKI: a mistyped {@code policy} path used to be created as a development policy
 * granting every key, and any start without a policy wrote one. Now a given path must exist, and the allow-all
 * policy appears only with {@code dev = true} ({@code keyserver --dev}), with a WARN line saying what it is.
 */
class DevelopmentPolicyTest {
    @TempDir
    Path dir;

    @Test
    void aGivenPolicyPathThatDoesNotExistStopsTheStartEvenInDevelopmentMode() throws Exception {
        Path typo = dir.resolve("polcy.conf");
        try (KeyServerFixture fixture = KeyServerFixture.create(dir.resolve("data"),
                Map.of("policy", typo.toString(), "dev", "true"))) {
            assertThatThrownBy(fixture::start).isInstanceOf(ConfigException.class)
                    .hasMessage("policy: cannot read " + typo + ": no such file or directory");
        }
        assertThat(typo).doesNotExist();
        assertThat(dir.resolve("data/policy.conf")).doesNotExist();
    }

    @Test
    void withoutDevNoPolicyIsWrittenAndTheStartSaysHowToGetOne() throws Exception {
        Path policy = dir.resolve("data/policy.conf");
        try (KeyServerFixture fixture = KeyServerFixture.create(dir.resolve("data"), Map.of("dev", "false"))) {
            assertThatThrownBy(fixture::start).isInstanceOf(ConfigException.class)
                    .hasMessageStartingWith("policy: no policy file at " + policy + " (the default of the 'policy' "
                            + "setting): write one (docs/authorization.md), or start with --dev");
        }
        assertThat(policy).doesNotExist();
    }

    @Test
    void devWritesThePolicyGrantingTheDevelopmentClientEveryKeyAndSaysSoLoudly() throws Exception {
        try (KeyServerFixture fixture = KeyServerFixture.create(dir.resolve("data"), Map.of("dev", "true"));
             LogCapture logs = LogCapture.asConfigured()) {
            KeyServerFixture.TestKey key = fixture.addKeys(List.of(KeyType.EC_P256), Set.of()).get(0);
            fixture.start();

            assertThat(Files.readString(dir.resolve("data/policy.conf"))).contains("allow all");
            assertThat(logs.text()).containsPattern("WARN .*DEVELOPMENT MODE.*ALLOW-ALL policy "
                    + java.util.regex.Pattern.quote(dir.resolve("data/policy.conf").toString()));
            String json = """
                    {"method":"ECDHE","hash":"SHA-256","spki":"%s","input":"AAECAw=="}"""
                    .formatted(KeyIds.keyId(key.pair().getPublic()));
            assertThat(fixture.post(fixture.client(HttpClient.Version.HTTP_2), json).statusCode()).isEqualTo(200);
        }
    }
}

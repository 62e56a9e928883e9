// RedisKeyServerTest -- keys provisioned into a real Redis with the keys CLI, served by a key server with store=redis://.
package io.elastikey.keyserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.elastikey.keyserver.cli.KeysCommand;
import io.elastikey.keyserver.cli.Progress;
import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.store.redis.RedisServer;
import io.elastikey.store.redis.RedisServers;

import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class RedisKeyServerTest {
    @TempDir
    Path dir;

    private String keys(Path data, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = KeysCommand.commandLine(Progress.NONE);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(1, List.of("--data", data.toString()));
        int code = cl.execute(all.toArray(String[]::new));
        assertThat(code).as("keys %s: %s", String.join(" ", args), err).isZero();
        return out.toString();
    }

    @Test
    void keysProvisionedIntoRedisAreServedOverMutualTls() throws Exception {
        Path data = dir.resolve("data");
        try (RedisServer redis = RedisServers.standalone(dir, "requirepass redispw")) {
            String store = "redis://:redispw@127.0.0.1:" + redis.port() + "?prefix=ek:";
            keys(data, "generate", "--count", "3", "--type", "ec256", "--store", store);
            assertThat(keys(data, "count", "--store", store).strip()).isEqualTo("3");
            assertThat(Files.exists(data.resolve("keys"))).as("nothing went to an ElasticStore").isFalse();
            Path certs = dir.resolve("certs.pem");
            keys(data, "export-public", "--out", certs.toString(), "--store", store);
            List<Certificate> certificates;
            try (InputStream in = Files.newInputStream(certs)) {
                certificates = new ArrayList<>(CertificateFactory.getInstance("X.509").generateCertificates(in));
            }
            assertThat(certificates).hasSize(3);

            try (KeyServerFixture fixture = KeyServerFixture.create(data, Map.of("store", store)).start()) {
                HttpClient client = fixture.client(HttpClient.Version.HTTP_2);
                for (Certificate certificate : certificates) {
                    byte[] content = new byte[130];
                    new SecureRandom().nextBytes(content);
                    HttpResponse<String> response = fixture.post(client, """
                            {"protocol":"TLS 1.3","method":"SIGN","scheme":"ecdsa_secp256r1_sha256","spki":"%s","input":"%s"}"""
                            .formatted(KeyIds.keyId(certificate.getPublicKey()),
                                    Base64.getEncoder().encodeToString(content)));
                    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
                    Signature verifier = Signature.getInstance("SHA256withECDSA");
                    verifier.initVerify(certificate.getPublicKey());
                    verifier.update(content);
                    byte[] signature = Base64.getDecoder().decode(
                            new ObjectMapper().readTree(response.body()).get("output").asText());
                    assertThat(verifier.verify(signature)).as("signature verifies with the public key").isTrue();
                }
                assertThat(fixture.admin("/readyz").statusCode()).isEqualTo(200);

                redis.kill();
                KeyServerFixture.await("/readyz to fail while Redis is down",
                        () -> fixture.admin("/readyz").statusCode() != 200);
                redis.restart();
                KeyServerFixture.await("/readyz to pass once Redis is back",
                        () -> fixture.admin("/readyz").statusCode() == 200);
            }
        }
    }

    @Test
    void aKeyRemovedThroughAnyClientOfTheStoreIsForgottenByEveryServerThatCachedIt() throws Exception {
        Path dataA = dir.resolve("a");
        Path dataB = dir.resolve("b");
        Path shell = dir.resolve("shell");
        try (RedisServer redis = RedisServers.standalone(dir, "")) {
            String store = "redis://127.0.0.1:" + redis.port() + "?prefix=ek:";
            keys(dataA, "generate", "--count", "4", "--type", "ec256", "--store", store);
            Path certs = dir.resolve("certs.pem");
            keys(dataA, "export-public", "--out", certs.toString(), "--store", store);
            List<Certificate> certificates;
            try (InputStream in = Files.newInputStream(certs)) {
                certificates = new ArrayList<>(CertificateFactory.getInstance("X.509").generateCertificates(in));
            }
            String kek = dataA.resolve("kek").toString();
            try (KeyServerFixture a = KeyServerFixture.create(dataA, Map.of("store", store)).start();
                 KeyServerFixture b = KeyServerFixture.create(dataB, Map.of("store", store, "kek.file", kek)).start()) {
                List<KeyServerFixture> servers = List.of(a, b);
                for (KeyServerFixture server : servers) {
                    for (Certificate certificate : certificates) {
                        assertThat(sign(server, certificate)).isEqualTo(200); // cached on both now
                    }
                }
                String first = KeyIds.keyId(certificates.get(0).getPublicKey());
                String second = KeyIds.keyId(certificates.get(1).getPublicKey());

                keys(dataA, "remove", first, "--store", store); // run inside server a, over its control socket
                keys(shell, "remove", second, "--store", store, "--set", "kek.file=" + kek); // straight to Redis

                for (KeyServerFixture server : servers) {
                    KeyServerFixture.await("both removed keys refused",
                            () -> sign(server, certificates.get(0)) == 404 && sign(server, certificates.get(1)) == 404);
                    assertThat(sign(server, certificates.get(2))).isEqualTo(200);
                    assertThat(sign(server, certificates.get(3))).isEqualTo(200);
                    assertThat(server.metrics().value("elastikey_keys_cache_entries")).isPositive();
                }

                // Every connection to Redis cut: the servers read the change log on from where they were, so a
                // removal made around the cut is heard and the rest of what they cached stays cached.
                assertThat(redis.cli("CLIENT", "KILL", "TYPE", "normal")).isNotBlank();
                String third = KeyIds.keyId(certificates.get(2).getPublicKey());
                keys(shell, "remove", third, "--store", store, "--set", "kek.file=" + kek);
                for (KeyServerFixture server : servers) {
                    KeyServerFixture.await("the key removed around the cut refused",
                            () -> sign(server, certificates.get(2)) == 404);
                    assertThat(server.metrics().value("elastikey_keys_cache_entries"))
                            .as("the fourth key still cached: nothing forgotten wholesale").isPositive();
                    assertThat(sign(server, certificates.get(3))).isEqualTo(200);
                }
            }
        }
    }

    private static int sign(KeyServerFixture server, Certificate certificate) throws Exception {
        return server.post(server.client(HttpClient.Version.HTTP_1_1), """
                {"protocol":"TLS 1.3","method":"SIGN","scheme":"ecdsa_secp256r1_sha256","spki":"%s","input":"aGk="}"""
                .formatted(KeyIds.keyId(certificate.getPublicKey()))).statusCode();
    }
}

package io.elastikey.keyserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.protocol.keyless.KeylessAnswerException;
import io.elastikey.protocol.keyless.KeylessClient;
import io.elastikey.protocol.keyless.KeylessError;
import io.elastikey.protocol.pki.IssuedCertificate;
import io.elastikey.protocol.ski.SkiClientOptions;
import io.elastikey.protocol.ski.SkiTls;
import io.elastikey.protocol.tickets.TicketKeySet;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /ticket-keys} on the SKI endpoint: the set for a client the policy grants {@code allow tickets}, a 403
 * for one it does not (decided against the policy in force, so a reload revokes at once), 405 for another method;
 * a query string does not change the path. The Keyless endpoint's opcode {@code 0xE1} gives the same set and
 * refuses it by the same policy.
 */
class TicketKeysEndpointTest {
    @TempDir
    static Path dir;
    private static KeyServerFixture fixture;
    private static HttpClient client;

    @BeforeAll
    static void start() throws Exception {
        fixture = KeyServerFixture.create(dir, Map.of("tickets.rotate", "10m", "tls.reload-interval", "100ms"));
        fixture.start();
        client = fixture.client(HttpClient.Version.HTTP_2);
    }

    @AfterAll
    static void stop() {
        fixture.close();
    }

    @Test
    void aClientGrantedTicketsGetsTheSetAndLosesItWhenThePolicyChanges() throws Exception {
        HttpResponse<byte[]> granted = get();

        assertThat(granted.statusCode()).isEqualTo(200);
        TicketKeySet set = TicketKeySet.fromJson(granted.body());
        assertThat(set.rotation()).isEqualTo(Duration.ofMinutes(10));
        assertThat(set.keys()).hasSize(3);
        assertThat(TicketKeySet.fromJson(get().body())).isEqualTo(set);

        String fingerprint = KeyServerFixture.fingerprintOf(fixture.pki().client());
        fixture.writePolicy("rule edge\n  client fingerprint " + fingerprint + "\n  allow all\n");
        KeyServerFixture.await("the policy without tickets is in force", () -> get().statusCode() == 403);
        assertThat(new String(get().body())).isEqualTo("{\"error\":\"request denied\"}");

        fixture.writePolicy("rule edge\n  client fingerprint " + fingerprint + "\n  allow tickets\n");
        KeyServerFixture.await("the policy with tickets is in force", () -> get().statusCode() == 200);
    }

    @Test
    void keylessGivesTheSameSetByItsOwnOpcodeAndRefusesItAsTheSkiEndpointDoes() throws Exception {
        try (KeylessClient keyless = keylessClient()) {
            TicketKeySet overKeyless = keyless.ticketKeys().get(10, TimeUnit.SECONDS);

            assertThat(overKeyless).isEqualTo(TicketKeySet.fromJson(get().body()));
            assertThat(keyless.ping(new byte[] {7}).get(10, TimeUnit.SECONDS)).containsExactly(7);

            String fingerprint = KeyServerFixture.fingerprintOf(fixture.pki().client());
            try {
                fixture.writePolicy("rule edge\n  client fingerprint " + fingerprint + "\n  allow all\n");
                KeyServerFixture.await("the policy without tickets is in force", () -> get().statusCode() == 403);
                assertThatThrownBy(() -> keyless.ticketKeys().get(10, TimeUnit.SECONDS))
                        .hasMessageContaining("not granted them").hasMessageContaining("allow tickets")
                        .cause().isInstanceOf(IllegalStateException.class)
                        .cause().isInstanceOf(KeylessAnswerException.class)
                        .satisfies(e -> assertThat(((KeylessAnswerException) e).keylessError())
                                .isEqualTo(KeylessError.KEY_NOT_FOUND));
                assertThat(keyless.ping(new byte[] {8}).get(10, TimeUnit.SECONDS))
                        .as("the connection goes on after a refusal").containsExactly(8);
            } finally {
                fixture.writePolicy("rule edge\n  client fingerprint " + fingerprint
                        + "\n  allow all\n  allow tickets\n");
                KeyServerFixture.await("the policy with tickets is in force", () -> get().statusCode() == 200);
            }
        }
    }

    @Test
    void aQueryDoesNotChangeThePath() throws Exception {
        HttpResponse<byte[]> withQuery = client.send(fixture.request(TicketKeySet.PATH + "?x=1").GET().build(),
                HttpResponse.BodyHandlers.ofByteArray());

        assertThat(withQuery.statusCode()).isEqualTo(200);
        assertThat(TicketKeySet.fromJson(withQuery.body())).isEqualTo(TicketKeySet.fromJson(get().body()));
    }

    @Test
    void anotherMethodIsRefused() throws Exception {
        HttpResponse<String> post = client.send(fixture.request("/ticket-keys")
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.headers().firstValue("allow")).hasValue("GET");
    }

    private static KeylessClient keylessClient() throws Exception {
        IssuedCertificate identity = fixture.pki().client();
        return KeylessClient.create(SkiTls.clientContext(identity.chain(), identity.privateKey(),
                        List.of(fixture.pki().ca().certificate()), null, SkiTls.defaultProvider()),
                fixture.server().keylessAddress(), SkiClientOptions.builder().requestTimeout(Duration.ofSeconds(10))
                        .serverName("localhost").build());
    }

    private static HttpResponse<byte[]> get() throws Exception {
        return client.send(fixture.request("/ticket-keys").GET().build(), HttpResponse.BodyHandlers.ofByteArray());
    }
}

package io.elastikey.keyserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.protocol.tickets.TicketKeySet;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /ticket-keys} on the SKI endpoint: the set for a client the policy grants {@code allow tickets}, a 403
 * for one it does not (decided against the policy in force, so a reload revokes at once), 405 for another method;
 * a query string does not change the path.
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

    private static HttpResponse<byte[]> get() throws Exception {
        return client.send(fixture.request("/ticket-keys").GET().build(), HttpResponse.BodyHandlers.ofByteArray());
    }
}

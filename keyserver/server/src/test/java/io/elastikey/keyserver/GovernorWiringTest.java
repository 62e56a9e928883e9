// GovernorWiringTest -- store.governor = on: the key server runs a memory governor and exports its metrics.
package io.elastikey.keyserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.scaleup.ScaleUpException;
import io.elastikey.store.governor.AgentState;
import io.elastikey.store.governor.Decision;
import io.elastikey.store.governor.PoolClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GovernorWiringTest {
    @TempDir
    Path dir;

    @Test
    void theServerGovernsItsStoreThroughTheFactorysClientAndExportsMetrics() throws Exception {
        PoolClient agent = new PoolClient(1024);
        List<Object> asked = new ArrayList<>();
        KeyServerFixture fixture = KeyServerFixture.create(dir, Map.of("store.governor", "on",
                "store.memory", "8m", "store.governor.max", "64m", "store.governor.interval", "20ms",
                "scaleup.socket", dir.resolve("agent.sock").toString(), "scaleup.client", "ks-test"));
        try (KeyServer server = KeyServer.start(fixture.config(), (socket, name, timeout) -> {
            asked.addAll(List.of(socket, name, timeout));
            return agent;
        })) {
            assertThat(asked).containsExactly(dir.resolve("agent.sock").toAbsolutePath().normalize(), "ks-test",
                    Duration.ofSeconds(1));
            waitFor(() -> agent.grantedMb() == 8); // the first contact registers the 8 MiB budget
            waitFor(() -> server.governor().stats().decisions(Decision.Kind.HOLD) > 0);
            assertThat(server.governor().agentState()).isEqualTo(AgentState.UP);

            ScrapedMetrics metrics = scrape(server);
            assertThat(metrics.value("elastikey_store_governor_agent_up")).isEqualTo(1);
            assertThat(metrics.value("elastikey_store_governor_grant_bytes")).isEqualTo(8 << 20);
            assertThat(metrics.value("elastikey_store_governor_budget_bytes")).isEqualTo(8 << 20);
            assertThat(metrics.value("elastikey_store_governor_decisions_total", "kind", "sync")).isEqualTo(1);
            assertThat(metrics.value("elastikey_store_governor_outcomes_total", "outcome", "granted")).isEqualTo(1);
            assertThat(metrics.value("elastikey_store_governor_decisions_total", "kind", "hold")).isPositive();
            assertThat(metrics.value("elastikey_store_governor_available_bytes")).isPositive();
            assertThat(metrics.value("elastikey_store_governor_agent_failures_total")).isZero();
        }
        assertThat(agent.grantedMb()).isZero(); // given back on close
        assertThat(agent.freeMb()).isEqualTo(1024);
    }

    @Test
    void anAbsentAgentShowsInTheMetricsAndTheServerKeepsServing() throws Exception {
        PoolClient agent = new PoolClient(1024);
        agent.failWith(ScaleUpException.Reason.NO_AGENT);
        KeyServerFixture fixture = KeyServerFixture.create(dir, Map.of("store.governor", "on",
                "store.memory", "8m", "store.governor.max", "64m", "store.governor.interval", "20ms"));
        try (KeyServer server = KeyServer.start(fixture.config(), (socket, name, timeout) -> agent)) {
            waitFor(() -> server.governor().stats().agentFailures() > 0);
            ScrapedMetrics metrics = scrape(server);
            assertThat(metrics.value("elastikey_store_governor_agent_up")).isZero();
            assertThat(metrics.value("elastikey_store_governor_grant_bytes")).isEqualTo(-1);
            assertThat(metrics.value("elastikey_store_governor_agent_failures_total")).isPositive();
            assertThat(metrics.value("elastikey_store_entries")).isPositive(); // the store still answers

            agent.failWith(null);
            waitFor(() -> agent.grantedMb() == 8);
        }
        assertThat(agent.grantedMb()).isZero(); // given back on close
    }

    private static ScrapedMetrics scrape(KeyServer server) throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + server.adminAddress().getPort() + "/metrics");
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return ScrapedMetrics.parse(response.body());
    }

    @Test
    void offMeansNoGovernorAndNoClient() throws Exception {
        KeyServerFixture fixture = KeyServerFixture.create(dir, Map.of());
        try (KeyServer server = KeyServer.start(fixture.config(), (socket, name, timeout) -> {
            throw new AssertionError("no client wanted");
        })) {
            assertThat(server.governor()).isNull();
            assertThat(scrape(server).text()).doesNotContain("elastikey_store_governor");
        }
    }

    private static void waitFor(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not reached in 30 s");
            }
            Thread.sleep(10);
        }
    }
}

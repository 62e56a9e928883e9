package io.elastikey.scaleup.agent;

import io.elastikey.scaleup.ScaleUpResponse;
import io.elastikey.scaleup.ScaleUpResponse.Status;
import io.elastikey.scaleup.agent.pool.PoolSnapshot;
import io.elastikey.scaleup.socket.SocketScaleUpClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/** Many clients at once, a small pool: the sum of grants never exceeds it, at any instant or in any answer. */
class AgentConcurrencyTest {
    @TempDir
    Path dir;

    @Test
    void concurrentClientsNeverOverCommitThePool() throws Exception {
        long poolMb = 1000;
        AgentConfig config = AgentConfig.builder().socketPath(dir.resolve("a.sock"))
                .ledgerFile(dir.resolve("ledger.json")).poolMb(poolMb)
                .client(new ClientLimits("reserved", 200, 400)).build();
        int clients = 24;
        ExecutorService threads = Executors.newFixedThreadPool(clients + 1);
        AtomicBoolean running = new AtomicBoolean(true);
        try (ScaleUpAgent agent = ScaleUpAgent.start(config)) {
            Future<Integer> watcher = threads.submit(() -> {
                int checks = 0;
                while (running.get()) {
                    PoolSnapshot s = agent.pool();
                    assertThat(s.committedMb()).isLessThanOrEqualTo(poolMb);
                    assertThat(s.grantedMb()).isLessThanOrEqualTo(poolMb);
                    checks++;
                }
                return checks;
            });
            ConcurrentHashMap<String, Long> lastGrant = new ConcurrentHashMap<>();
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < clients; t++) {
                String name = t == 0 ? "reserved" : "client-" + t;
                workers.add(threads.submit(() -> {
                    try (SocketScaleUpClient c = new SocketScaleUpClient(agent.socketPath(), name,
                            Duration.ofSeconds(30))) {
                        for (int i = 0; i < 60; i++) {
                            long ask = ThreadLocalRandom.current().nextLong(0, 300);
                            ScaleUpResponse r = c.rescale(ask, "");
                            assertThat(r.status()).isIn(Status.GRANTED, Status.PARTIAL, Status.DENIED);
                            assertThat(r.grantedMb()).isLessThanOrEqualTo(Math.max(ask, lastGrant.getOrDefault(name, 0L)));
                            assertThat(r.poolFreeMb()).isBetween(0L, poolMb);
                            lastGrant.put(name, r.grantedMb());
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> w : workers) {
                w.get();
            }
            running.set(false);
            assertThat(watcher.get()).isPositive();
            PoolSnapshot end = agent.pool();
            assertThat(end.grantedMb()).isLessThanOrEqualTo(poolMb);
            long sumOfLastAnswers = lastGrant.values().stream().mapToLong(Long::longValue).sum();
            assertThat(sumOfLastAnswers).isEqualTo(end.grantedMb()).isLessThanOrEqualTo(poolMb);
            // a restart restores exactly what the last answers said
            agent.close();
            try (ScaleUpAgent again = ScaleUpAgent.start(config)) {
                assertThat(again.pool().grantedMb()).isEqualTo(sumOfLastAnswers);
            }
        } finally {
            running.set(false);
            threads.shutdownNow();
        }
    }
}

// GiveBackTest -- the agent asks clients for memory back (a shrunk pool, a grow that does not fit), waits, then lowers.
package io.elastikey.scaleup.agent;

import io.elastikey.scaleup.GiveBackRequest;
import io.elastikey.scaleup.ScaleUpResponse;
import io.elastikey.scaleup.ScaleUpResponse.Status;
import io.elastikey.scaleup.agent.ledger.Ledger;
import io.elastikey.scaleup.agent.pool.Owner;
import io.elastikey.scaleup.socket.GiveBackWatch;
import io.elastikey.scaleup.socket.SocketScaleUpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The real agent (its socket, pool, ledger and the per-client cgroup actuator over a fake v1 tree, whose limit files
 * the test reads) and real watch connections ({@link GiveBackWatch}). The kernel-enforced version, with a store in a
 * memory cgroup, is {@code GiveBackKernelTest} in the store module.
 */
class GiveBackTest {
    private static final long MIB = 1024 * 1024;
    private static final long BASE_MB = 64;

    @TempDir
    Path dir;
    private Path parent;
    private ScaleUpAgent agent;
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
        if (agent != null) {
            agent.close();
        }
    }

    @Test
    void aShrunkPoolAsksTheWatcherAndTheLimitDropsOnlyWithItsRescale() throws Exception {
        start(1024, Duration.ofSeconds(30));
        SocketScaleUpClient a = client("store-a");
        assertThat(a.rescale(800, "").grantedMb()).isEqualTo(800);
        BlockingQueue<GiveBackRequest> heard = watch("store-a");

        ScaleUpResponse pool = admin().pool(512);
        assertThat(pool.status()).isEqualTo(Status.GRANTED);
        assertThat(pool.grantedMb()).as("the pool's new size").isEqualTo(512);
        assertThat(pool.message()).contains("pool shrunk from 1024 to 512 MiB").contains("store-a 288 MiB (to 512 MiB)");

        GiveBackRequest asked = heard.poll(10, TimeUnit.SECONDS);
        assertThat(asked).isNotNull();
        assertThat(asked.memoryMb()).isEqualTo(512);
        assertThat(asked.grantedMb()).isEqualTo(800);
        assertThat(asked.deadlineMs()).isEqualTo(30_000);
        assertThat(asked.reason()).contains("the pool shrank from 1024 to 512 MiB");
        assertThat(limitMb("store-a")).as("the limit waits for the client").isEqualTo(BASE_MB + 800);
        assertThat(agent.pool().grants()).containsEntry("store-a", 800L);

        ScaleUpResponse ack = a.rescale(512, "give back");
        assertThat(ack.status()).isEqualTo(Status.GRANTED);
        assertThat(limitMb("store-a")).isEqualTo(BASE_MB + 512);
        assertThat(agent.pool().overCommitMb()).isZero();
    }

    @Test
    void aClientThatDoesNotAnswerIsLoweredAtTheDeadlineAndKeepsItsOwner() throws Exception {
        start(1024, Duration.ofMillis(300));
        client("store-a").rescale(600, "");
        client("store-b").rescale(300, "");
        BlockingQueue<GiveBackRequest> heard = watch("store-a"); // hears, never answers; store-b does not even listen

        String message = admin().pool(400).message();
        assertThat(message).contains("store-a").contains("store-b").contains("not watching");
        assertThat(heard.poll(10, TimeUnit.SECONDS)).isNotNull();
        waitFor(() -> agent.pool().overCommitMb() == 0 && limitMb("store-a") == BASE_MB + 200
                && limitMb("store-b") == BASE_MB + 200); // the pool first, then the ledger, then the limit

        assertThat(agent.pool().grants().values().stream().mapToLong(Long::longValue).sum()).isLessThanOrEqualTo(400);
        assertThat(agent.pool().grants()).containsEntry("store-a", 200L).containsEntry("store-b", 200L);
        assertThat(limitMb("store-a")).isEqualTo(BASE_MB + 200);
        assertThat(limitMb("store-b")).isEqualTo(BASE_MB + 200);
        Ledger.Contents ledger = new Ledger(dir.resolve("ledger.json"), Ledger.Sync.PROCESS).readAll();
        assertThat(ledger.grants()).containsEntry("store-a", 200L).containsEntry("store-b", 200L);
        Owner owner = ledger.owners().get("store-a");
        assertThat(owner.pid()).as("the grant stays with the process that made it")
                .isEqualTo(ProcessHandle.current().pid());
    }

    @Test
    void aGrowThatDoesNotFitAsksTheOthersDownToTheirFairShare() throws Exception {
        start(1000, Duration.ofSeconds(30));
        SocketScaleUpClient a = client("store-a");
        a.rescale(900, "");
        GiveBackWatch auto = GiveBackWatch.start(dir.resolve("a.sock"), "store-a", r -> {
            try {
                a.rescale(r.memoryMb(), "give back");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, Duration.ofMillis(100));
        closeables.add(auto);
        waitFor(auto::watching);

        SocketScaleUpClient b = client("store-b");
        ScaleUpResponse first = b.rescale(600, "");
        assertThat(first.status()).isEqualTo(Status.PARTIAL);
        assertThat(first.grantedMb()).isEqualTo(100);
        assertThat(first.message()).contains("store-a 400 MiB (to 500 MiB)").contains("ask again");
        waitFor(() -> agent.pool().grants().get("store-a") == 500);

        ScaleUpResponse again = b.rescale(600, "");
        assertThat(again.grantedMb()).as("its fair share, no more is taken from the others").isEqualTo(500);
        assertThat(again.message()).doesNotContain("give back");
        assertThat(limitMb("store-a")).isEqualTo(BASE_MB + 500);
        assertThat(limitMb("store-b")).isEqualTo(BASE_MB + 500);
    }

    @Test
    void aPoolBelowTheMinimumsIsRefused() throws Exception {
        agent = ScaleUpAgent.start(AgentConfig.builder().socketPath(dir.resolve("a.sock"))
                .ledgerFile(dir.resolve("ledger.json")).poolMb(512).client(new ClientLimits("store-a", 256, 512))
                .build());
        ScaleUpResponse refused = admin().pool(128);
        assertThat(refused.status()).isEqualTo(Status.ERROR);
        assertThat(refused.message()).contains("cannot hold the clients' minimums (256 MiB)");
        assertThat(agent.pool().poolMb()).isEqualTo(512);
    }

    // ---- helpers ------------------------------------------------------------------------------------

    private void start(long poolMb, Duration giveBackTimeout) throws Exception {
        parent = Files.createDirectories(dir.resolve("memory/elastikey"));
        Files.writeString(parent.resolve("memory.limit_in_bytes"), "9223372036854771712\n");
        for (String c : List.of("store-a", "store-b")) { // the files the kernel would make
            Path cg = Files.createDirectories(parent.resolve(c));
            Files.writeString(cg.resolve("memory.limit_in_bytes"), "");
            Files.writeString(cg.resolve("cgroup.procs"), "");
        }
        agent = ScaleUpAgent.start(AgentConfig.builder().socketPath(dir.resolve("a.sock"))
                .ledgerFile(dir.resolve("ledger.json")).poolMb(poolMb).actuator(AgentConfig.ActuatorKind.CGROUP)
                .cgroupParent(parent).cgroupBaseMb(BASE_MB).giveBackTimeout(giveBackTimeout).build());
    }

    private SocketScaleUpClient client(String name) throws Exception {
        SocketScaleUpClient c = new SocketScaleUpClient(dir.resolve("a.sock"), name, Duration.ofSeconds(10));
        closeables.add(c);
        return c;
    }

    private SocketScaleUpClient admin() throws Exception {
        return client("admin");
    }

    private BlockingQueue<GiveBackRequest> watch(String name) throws Exception {
        BlockingQueue<GiveBackRequest> heard = new LinkedBlockingQueue<>();
        GiveBackWatch w = GiveBackWatch.start(dir.resolve("a.sock"), name, heard::add, Duration.ofMillis(100));
        closeables.add(w);
        waitFor(w::watching);
        return heard;
    }

    private long limitMb(String client) {
        try {
            String text = Files.readString(parent.resolve(client).resolve("memory.limit_in_bytes")).trim();
            return text.isEmpty() ? -1 : Long.parseLong(text) / MIB;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void waitFor(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 20 s");
            }
            Thread.sleep(10);
        }
    }
}

// GiveBackKernelTest -- the agent asks a store in a real memory cgroup for memory back; the kernel is the witness.
package io.elastikey.store.governor;

import io.elastikey.scaleup.ScaleUpException;
import io.elastikey.scaleup.ScaleUpResponse;
import io.elastikey.scaleup.agent.cli.ScaleUpDaemonCommand;
import io.elastikey.scaleup.socket.SocketScaleUpClient;
import io.elastikey.store.elastic.ChildJvm;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * scaleupd (its own JVM, the cgroup actuator with a parent cgroup under the real v1 memory controller) and a store
 * with its governor in another JVM ({@link GiveBackChild}), which the agent moves into the cgroup {@code store} on its
 * first request. The store's 256 MiB tier is anonymous memory the kernel cannot reclaim (no swap), so a v1 kernel
 * refuses ({@code EBUSY}) any limit below it: a lower limit that the kernel accepts proves the tier shrank first.
 *
 * <ul>
 *   <li>A listening store: the pool shrinks to 32 MiB; the store resizes its tier to 32 MiB, then rescales down, and
 *       the agent's limit of 128 + 32 MiB is taken by the kernel. Nothing is OOM-killed and every value is served.</li>
 *   <li>A store that does not listen: at the give-back deadline the agent lowers the grant anyway; the kernel refuses
 *       the 160 MiB limit, so the agent sets the limit to what the cgroup uses (the lowest the kernel takes without
 *       killing): the client can no longer grow.</li>
 * </ul>
 * Needs root and the cgroup v1 memory controller; skipped otherwise. The cgroups made here are removed after.
 */
class GiveBackKernelTest {
    private static final long MIB = 1L << 20;
    private static final Path MEMORY = Path.of("/sys/fs/cgroup/memory");
    private static final int KEYS = 60_000;
    private static final long GRANT_MB = 256;
    private static final long BASE_MB = 128;

    @TempDir
    Path dir;
    private Path parent;
    private Process agent;
    private Process store;
    private final BlockingQueue<String> storeLines = new LinkedBlockingQueue<>();

    @BeforeEach
    void cgroup() throws IOException {
        assumeTrue(Files.isWritable(MEMORY) && Files.exists(MEMORY.resolve("memory.limit_in_bytes")),
                "cgroup v1 memory controller not writable at " + MEMORY + " (needs root): skipped");
        parent = MEMORY.resolve("elastikey-giveback-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        Files.createDirectory(parent);
    }

    @AfterEach
    void cleanUp() throws Exception {
        for (Process p : new Process[] {store, agent}) {
            if (p != null) {
                p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
        }
        if (parent != null && Files.isDirectory(parent)) {
            try (var children = Files.list(parent)) {
                for (Path c : children.filter(Files::isDirectory).toList()) {
                    rmdir(c);
                }
            }
            rmdir(parent);
        }
    }

    @Test
    void theStoreShrinksItsTierBeforeTheKernelLimitDrops() throws Exception {
        // A deadline far past the waits below: on a loaded machine (the full suite, other work) the shrink can take
        // tens of seconds, and an agent that gave up first would lower the limit itself, which is the other test's case.
        startAgent("150s");
        startStore("listen");
        long usedBefore = usage();
        assertThat(usedBefore).as("the tier is charged to the client's cgroup").isGreaterThan((BASE_MB + 32) * MIB);
        assertThat(limit()).isEqualTo((BASE_MB + GRANT_MB) * MIB);

        ScaleUpResponse pool = admin().pool(32);
        assertThat(pool.message()).contains("store " + (GRANT_MB - 32) + " MiB (to 32 MiB)");

        awaitLine(l -> l.startsWith("budget=" + 32 * MIB + " "), 120);
        waitFor(() -> limit() == (BASE_MB + 32) * MIB, 120);
        assertThat(usage()).isLessThanOrEqualTo(limit());
        // The agent logs the rescale after the kernel took the limit, so the line can trail the limit by a moment.
        String written = "cgroup limit " + (BASE_MB + 32) + " MiB written to " + parent.resolve("store");
        waitFor(() -> agentLog().contains(written), 30);
        assertThat(agentLog()).doesNotContain("cgroup limit not applied").doesNotContain("deadline passed");
        assertThat(oomKills()).isZero();
        assertThat(store.isAlive()).isTrue();
        send("verify");
        assertThat(awaitLine(l -> l.startsWith("verified "), 120)).isEqualTo("verified " + KEYS);
    }

    @Test
    void aStoreThatDoesNotListenGetsItsLimitLoweredAtTheDeadline() throws Exception {
        startAgent("2s");
        startStore("deaf");
        long oldLimit = limit();

        admin().pool(32);
        waitFor(() -> agentLog().contains("deadline passed"), 60);
        assertThat(agentGrant()).isEqualTo(32);
        assertThat(agentLog()).contains("the kernel refused a cgroup limit of " + (BASE_MB + 32) + " MiB");
        long lowered = limit();
        assertThat(lowered).as("lowered to what it uses, below the old limit").isLessThan(oldLimit)
                .isGreaterThanOrEqualTo(usage());
        assertThat(oomKills()).isZero();
        assertThat(store.isAlive()).isTrue();
    }

    // ---- helpers ------------------------------------------------------------------------------------

    private void startAgent(String giveBackTimeout) throws Exception {
        List<String> cmd = ChildJvm.command(ChildJvm.buildJvmFlags(), ScaleUpDaemonCommand.class,
                "--socket", socket().toString(), "--pool", "512m", "--data", dir.resolve("agent").toString(),
                "--actuator", "cgroup", "--cgroup-parent", parent.toString(), "--cgroup-base", BASE_MB + "m",
                "--give-back-timeout", giveBackTimeout);
        agent = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("agent.log").toFile())).start();
        waitFor(() -> {
            try {
                agentGrant();
                return true;
            } catch (ScaleUpException e) {
                assertThat(agent.isAlive()).as("scaleupd: " + agentLog()).isTrue();
                return false;
            }
        }, 60);
    }

    private void startStore(String mode) throws Exception {
        List<String> flags = new ArrayList<>(ChildJvm.buildJvmFlags());
        flags.add("-Xmx96m");
        List<String> cmd = ChildJvm.command(flags, GiveBackChild.class, socket().toString(),
                dir.resolve("store").toString(), Integer.toString(KEYS), Long.toString(GRANT_MB), mode);
        store = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(store.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    storeLines.add(line);
                }
            } catch (IOException ignored) {
                // the child ended
            }
        });
        reader.setDaemon(true);
        reader.start();
        awaitLine(l -> l.startsWith("ready "), 300);
    }

    private String awaitLine(Predicate<String> wanted, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        List<String> seen = new ArrayList<>();
        while (System.nanoTime() < deadline && (store.isAlive() || !storeLines.isEmpty())) {
            String line = storeLines.poll(100, TimeUnit.MILLISECONDS);
            if (line != null) {
                if (wanted.test(line)) {
                    return line;
                }
                if (seen.size() > 40) {
                    seen.remove(0);
                }
                seen.add(line);
            }
        }
        throw new AssertionError("the store " + (store.isAlive() ? "did not print the line awaited" : "died")
                + "; last lines: " + seen + "; agent log: " + agentLog());
    }

    private void send(String line) throws IOException {
        OutputStream out = store.getOutputStream();
        out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private Path socket() {
        return dir.resolve("a.sock");
    }

    private SocketScaleUpClient admin() throws ScaleUpException {
        return new SocketScaleUpClient(socket(), "admin", Duration.ofSeconds(10));
    }

    private long agentGrant() throws ScaleUpException {
        try (SocketScaleUpClient c = new SocketScaleUpClient(socket(), "store", Duration.ofSeconds(10))) {
            return c.status().grantedMb();
        }
    }

    private String agentLog() {
        try {
            return Files.readString(dir.resolve("agent.log"));
        } catch (IOException e) {
            return "";
        }
    }

    private long limit() {
        return readLong(parent.resolve("store/memory.limit_in_bytes"));
    }

    private long usage() {
        return readLong(parent.resolve("store/memory.usage_in_bytes"));
    }

    private long oomKills() throws IOException {
        return Files.readAllLines(parent.resolve("store/memory.oom_control")).stream()
                .filter(l -> l.startsWith("oom_kill ")).mapToLong(l -> Long.parseLong(l.substring(9).trim()))
                .findFirst().orElse(0);
    }

    private static long readLong(Path file) {
        try {
            return Long.parseLong(Files.readString(file).trim());
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private interface Condition {
        boolean met() throws Exception;
    }

    private static void waitFor(Condition c, long seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!c.met()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within " + seconds + " s");
            }
            Thread.sleep(50);
        }
    }

    /** Moves any process left in a cgroup to the root (a killed child's leftovers), then removes it. */
    private static void rmdir(Path cgroup) throws IOException, InterruptedException {
        for (int i = 0; i < 100 && Files.isDirectory(cgroup); i++) {
            try {
                Files.delete(cgroup);
            } catch (IOException busy) {
                Thread.sleep(100);
            }
        }
    }
}

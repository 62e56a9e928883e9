// GrantOwnershipTest -- a grant belongs to the uid that made it: another user's scaleup cannot release or rescale it.
package io.elastikey.scaleup.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.elastikey.scaleup.ScaleUpResponse;
import io.elastikey.scaleup.agent.AgentConfig;
import io.elastikey.scaleup.agent.ClientLimits;
import io.elastikey.scaleup.agent.ScaleUpAgent;
import io.elastikey.scaleup.agent.ledger.Ledger;
import io.elastikey.scaleup.agent.pool.Owner;
import io.elastikey.scaleup.socket.SocketScaleUpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 15, defect 9: any local process could release any client's grant. Two users (uids 1001 and 1002, run
 * through {@code setpriv} with the socket's group, root, so both may connect) use the C {@code scaleup} tool the
 * way operators do; the agent tells them apart by {@code SO_PEERCRED}. Root (this test's JVM) is the admin.
 */
class GrantOwnershipTest {
    private static final Path BINARY = Path.of("..", "scaleup-client", "target", "native", platform(), "scaleup")
            .toAbsolutePath().normalize();
    private static final int ALICE = 1001;
    private static final int MALLORY = 1002;

    @TempDir
    Path dir;
    private ScaleUpAgent agent;

    @BeforeEach
    void startAgent() throws Exception {
        assumeTrue(ProcessHandle.current().info().user().orElse("").equals("root")
                && Files.isExecutable(Path.of("/usr/bin/setpriv")), "needs root and setpriv to act as two users");
        assertThat(BINARY).as("built by `make` in Maven's compile phase").isExecutable();
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-x---")); // group root may enter
        agent = start();
    }

    private ScaleUpAgent start() throws Exception {
        return ScaleUpAgent.start(AgentConfig.builder().socketPath(dir.resolve("a.sock"))
                .ledgerFile(dir.resolve("ledger.json")).poolMb(100)
                .client(ClientLimits.parse("keyserver:0:80")).build());
    }

    @AfterEach
    void stopAgent() {
        if (agent != null) {
            agent.close();
        }
    }

    @Test
    void anotherUserCannotReleaseOrRescaleAGrantItsOwnerCan() throws Exception {
        assertThat(scaleup(ALICE, "rescale", "keyserver", "64").out).startsWith("granted client=keyserver granted_mb=64");

        Run release = scaleup(MALLORY, "release", "keyserver");
        assertThat(release.exit).as("error answer").isEqualTo(3);
        assertThat(release.out + release.err).contains("release of client keyserver refused: its grant belongs to "
                + "uid " + ALICE);
        assertThat(scaleup(MALLORY, "rescale", "keyserver", "1").exit).isEqualTo(3);
        assertThat(scaleup(MALLORY, "rescale", "keyserver", "80").exit).isEqualTo(3);
        assertThat(agent.pool().grants()).containsEntry("keyserver", 64L);
        assertThat(scaleup(MALLORY, "status", "keyserver").out).as("status is open").contains("granted_mb=64");

        assertThat(scaleup(ALICE, "rescale", "keyserver", "32").out).startsWith("granted client=keyserver granted_mb=32");
        assertThat(scaleup(ALICE, "release", "keyserver").out).contains("granted_mb=0");
        assertThat(scaleup(MALLORY, "rescale", "keyserver", "16").exit).as("a released name is free again").isZero();
    }

    @Test
    void theOwnerIsInTheLedgerAndSurvivesARestart() throws Exception {
        Run grant = scaleup(ALICE, "rescale", "keyserver", "40");
        assertThat(grant.exit).isZero();
        Ledger.Contents ledger = new Ledger(dir.resolve("ledger.json"), Ledger.Sync.PROCESS).readAll();
        assertThat(ledger.grants()).isEqualTo(Map.of("keyserver", 40L));
        assertThat(ledger.owners().get("keyserver").uid()).isEqualTo(ALICE);
        assertThat(ledger.owners().get("keyserver").pid()).isPositive();

        agent.close();
        agent = start();
        assertThat(scaleup(MALLORY, "release", "keyserver").exit).isEqualTo(3);
        assertThat(agent.pool().grants()).containsEntry("keyserver", 40L);
    }

    @Test
    void rootMayReleaseAnyGrantAndTheOwnerStays() throws Exception {
        scaleup(ALICE, "rescale", "keyserver", "50");
        try (SocketScaleUpClient root = new SocketScaleUpClient(dir.resolve("a.sock"), "keyserver",
                Duration.ofSeconds(10))) {
            ScaleUpResponse shrunk = root.rescale(20, "admin shrink");
            assertThat(shrunk.status()).isEqualTo(ScaleUpResponse.Status.GRANTED);
            Owner owner = new Ledger(dir.resolve("ledger.json"), Ledger.Sync.PROCESS).readAll().owners().get("keyserver");
            assertThat(owner.uid()).as("root acting leaves the grant with its owner").isEqualTo(ALICE);
            assertThat(root.release().grantedMb()).isZero();
        }
        assertThat(agent.pool().grants()).doesNotContainKey("keyserver");
    }

    @Test
    void aGrantFromAVersionOneLedgerHasNoOwnerAndOnlyRootMayChangeIt() throws Exception {
        agent.close();
        Files.writeString(dir.resolve("ledger.json"),
                "{\"format\":\"elastikey-scaleupd-ledger\",\"version\":1,\"grants\":{\"keyserver\":30}}");
        agent = start();
        assertThat(agent.startupWarnings()).anyMatch(w -> w.contains("records no owner"));
        Run release = scaleup(ALICE, "release", "keyserver");
        assertThat(release.exit).isEqualTo(3);
        assertThat(release.out + release.err).contains("no recorded owner");
        try (SocketScaleUpClient root = new SocketScaleUpClient(dir.resolve("a.sock"), "keyserver",
                Duration.ofSeconds(10))) {
            assertThat(root.release().grantedMb()).isZero();
        }
        assertThat(scaleup(ALICE, "rescale", "keyserver", "10").exit).isZero();
    }

    @Test
    void giveBackFollowsTheOwnerWatchAndPoolAreNotForOthers() throws Exception {
        assertThat(scaleup(ALICE, "rescale", "keyserver", "64").exit).isZero();

        Run spy = scaleup(MALLORY, "watch", "keyserver", "--count", "1", "--timeout", "2000");
        assertThat(spy.exit).as("error answer").isEqualTo(3);
        assertThat(spy.out).contains("watch of client keyserver refused: its grant belongs to uid " + ALICE);
        Run shrink = scaleup(MALLORY, "pool", "keyserver", "10");
        assertThat(shrink.exit).isEqualTo(3);
        assertThat(shrink.out).contains("only root or the agent's own user");
        assertThat(scaleup(ALICE, "pool", "keyserver", "10").exit).as("an owner of a grant is no admin").isEqualTo(3);
        assertThat(agent.pool().poolMb()).isEqualTo(100);

        // The owner watches and acknowledges; root (this JVM, the admin) shrinks the pool.
        Process watcher = start(ALICE, "watch", "keyserver", "--count", "1", "--ack", "--timeout", "20000");
        Thread.sleep(500); // not a timing assertion: a watcher that connects late hears the pending request on connect
        try (SocketScaleUpClient root = new SocketScaleUpClient(dir.resolve("a.sock"), "admin",
                Duration.ofSeconds(10))) {
            assertThat(root.pool(40).message()).contains("keyserver 24 MiB (to 40 MiB)");
        }
        assertThat(watcher.waitFor(30, TimeUnit.SECONDS)).isTrue();
        String said = new String(watcher.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(watcher.exitValue()).as(said).isZero();
        assertThat(said).contains("give_back client=keyserver memory_mb=40 granted_mb=64")
                .contains("granted client=keyserver granted_mb=40");
        assertThat(agent.pool().grants()).containsEntry("keyserver", 40L);
        Owner owner = new Ledger(dir.resolve("ledger.json"), Ledger.Sync.PROCESS).readAll().owners().get("keyserver");
        assertThat(owner.uid()).isEqualTo(ALICE);
        assertThat(scaleup(MALLORY, "rescale", "keyserver", "1").exit).as("the ack changed no ownership").isEqualTo(3);
    }

    private Process start(int uid, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("setpriv", "--reuid=" + uid, "--regid=0", "--clear-groups",
                BINARY.toString()));
        cmd.addAll(List.of(args));
        cmd.addAll(List.of("--socket", agent.socketPath().toString()));
        return new ProcessBuilder(cmd).redirectErrorStream(true).start();
    }

    private record Run(int exit, String out, String err) {
    }

    /** The C tool run as {@code uid} with group root (the socket's group), no other groups. */
    private Run scaleup(int uid, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("setpriv", "--reuid=" + uid, "--regid=0", "--clear-groups",
                BINARY.toString()));
        cmd.addAll(List.of(args));
        cmd.addAll(List.of("--socket", agent.socketPath().toString()));
        Path out = Files.createTempFile("scaleup", ".out");
        Path err = Files.createTempFile("scaleup", ".err");
        try {
            Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("scaleup still running after 30 s");
            }
            return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    private static String platform() {
        String arch = System.getProperty("os.arch");
        return "linux-" + (arch.equals("amd64") || arch.equals("x86_64") ? "x86_64" : arch);
    }
}

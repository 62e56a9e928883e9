package io.elastikey.scaleup.agent;

import io.elastikey.scaleup.ScaleUpException;
import io.elastikey.scaleup.ScaleUpResponse.Status;
import io.elastikey.scaleup.agent.cli.ScaleUpDaemonCommand;
import io.elastikey.scaleup.socket.SocketScaleUpClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** scaleupd in a child JVM killed with SIGKILL: the next one restores every answered grant and reuses the socket. */
class AgentCrashTest {
    private static final long GUARD_NANOS = Duration.ofSeconds(60).toNanos(); // hang guard, not a timing check

    @TempDir
    Path dir;

    private Process startAgent(Path socket, Path ledger, Path log) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx128m");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(ScaleUpDaemonCommand.class.getName());
        cmd.addAll(List.of("--socket", socket.toString(), "--ledger", ledger.toString(), "--pool", "2g",
                "--client", "keyserver:0:1g"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + GUARD_NANOS;
        try (SocketScaleUpClient probe = new SocketScaleUpClient(socket, "probe", Duration.ofSeconds(5))) {
            while (true) {
                try {
                    probe.status();
                    return p;
                } catch (ScaleUpException notYet) {
                    if (!p.isAlive() || System.nanoTime() > deadline) {
                        p.destroyForcibly().waitFor();
                        throw new AssertionError("agent did not come up: " + notYet + "\n" + Files.readString(log));
                    }
                    Thread.sleep(50);
                }
            }
        }
    }

    @Test
    void grantsSurviveSigkill() throws Exception {
        Path socket = dir.resolve("agent.sock");
        Path ledger = dir.resolve("data/ledger.json");
        Process first = startAgent(socket, ledger, dir.resolve("first.log"));
        try (SocketScaleUpClient ks = new SocketScaleUpClient(socket, "keyserver", Duration.ofSeconds(10));
             SocketScaleUpClient other = new SocketScaleUpClient(socket, "batch", Duration.ofSeconds(10))) {
            assertThat(ks.rescale(700, "").status()).isEqualTo(Status.GRANTED);
            assertThat(ks.rescale(1500, "").grantedMb()).isEqualTo(1024);
            assertThat(other.rescale(300, "").grantedMb()).isEqualTo(300);
        } finally {
            first.destroyForcibly(); // SIGKILL on Linux: no shutdown hook, the socket file stays behind
            first.waitFor();
        }
        assertThat(socket).exists();
        Process second = startAgent(socket, ledger, dir.resolve("second.log"));
        try (SocketScaleUpClient ks = new SocketScaleUpClient(socket, "keyserver", Duration.ofSeconds(10))) {
            assertThat(ks.status().grantedMb()).isEqualTo(1024);
            assertThat(ks.status().poolFreeMb()).isEqualTo(2048 - 1024 - 300);
        } finally {
            second.destroy(); // SIGTERM: the shutdown hook removes the socket
            second.waitFor();
        }
        assertThat(Files.readString(dir.resolve("second.log"))).contains("restored 2 grant(s)");
    }
}

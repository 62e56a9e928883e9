// ScaleUpCliTest -- the C `scaleup` command against a real scaleupd: answers, exit codes, errors.
package io.elastikey.scaleup.cli;

import io.elastikey.scaleup.agent.AgentConfig;
import io.elastikey.scaleup.agent.ClientLimits;
import io.elastikey.scaleup.agent.ScaleUpAgent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tool an operator reaches for first ({@code scaleup status keyserver}), run as a process the way they run it.
 * scaleup-client's compile phase builds it into {@code scaleup-client/target/native/<os>-<arch>/scaleup}.
 */
class ScaleUpCliTest {
    private static final Path BINARY = Path.of("..", "scaleup-client", "target", "native", platform(), "scaleup")
            .toAbsolutePath().normalize();

    @TempDir
    Path dir;
    private ScaleUpAgent agent;

    @BeforeEach
    void startAgent() throws Exception {
        assertThat(BINARY).as("built by `make` in Maven's compile phase").isExecutable();
        agent = ScaleUpAgent.start(AgentConfig.builder().socketPath(dir.resolve("a.sock"))
                .ledgerFile(dir.resolve("ledger.json")).poolMb(100)
                .client(ClientLimits.parse("keyserver:0:80")).build());
    }

    @AfterEach
    void stopAgent() {
        agent.close();
    }

    @Test
    void grantedPartialAndDeniedAnswersAreExitCodesZeroOneAndTwo() throws Exception {
        Run granted = scaleup("rescale", "keyserver", "64", "--reason", "peak \"load\"");
        assertThat(granted.exit).isZero();
        assertThat(granted.out).startsWith("granted client=keyserver granted_mb=64 pool_free_mb=36 ");

        Run partial = scaleup("rescale", "keyserver", "200");
        assertThat(partial.exit).isEqualTo(1);
        assertThat(partial.out).startsWith("partial client=keyserver granted_mb=80 ");

        Run denied = scaleup("rescale", "keyserver", "300");
        assertThat(denied.exit).isEqualTo(2);
        assertThat(denied.out).startsWith("denied client=keyserver granted_mb=80 ");
    }

    @Test
    void statusAndReleaseShowAndReturnTheGrant() throws Exception {
        scaleup("rescale", "keyserver", "30");
        assertThat(scaleup("status", "keyserver").out).contains("granted_mb=30").contains("pool_free_mb=70");
        Run release = scaleup("release", "keyserver");
        assertThat(release.exit).isZero();
        assertThat(release.out).contains("granted_mb=0").contains("pool_free_mb=100");
        assertThat(agent.pool().freeMb()).isEqualTo(100);
    }

    @Test
    void theEnvironmentNamesTheSocketWhenNoOptionDoes() throws Exception {
        ProcessBuilder pb = new ProcessBuilder(BINARY.toString(), "status", "keyserver");
        pb.environment().put("SCALEUP_SOCKET", agent.socketPath().toString());
        assertThat(run(pb).exit).isZero();
    }

    @Test
    void failuresHaveTheirOwnExitCodesAndAMessageOnStderr() throws Exception {
        Run noAgent = run(new ProcessBuilder(BINARY.toString(), "status", "keyserver", "--socket",
                dir.resolve("nobody.sock").toString()));
        assertThat(noAgent.exit).isEqualTo(11);
        assertThat(noAgent.err).contains("no scale-up agent listening");

        Run badName = scaleup("status", "has space");
        assertThat(badName.exit).isEqualTo(15);

        Run usage = run(new ProcessBuilder(BINARY.toString(), "rescale", "keyserver", "lots"));
        assertThat(usage.exit).isEqualTo(64);
        assertThat(usage.err).contains("Usage: scaleup");

        Run help = run(new ProcessBuilder(BINARY.toString(), "--help"));
        assertThat(help.exit).isZero();
        assertThat(help.out).contains("Exit codes");
    }

    private record Run(int exit, String out, String err) {
    }

    private Run scaleup(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(BINARY.toString()));
        cmd.addAll(List.of(args));
        cmd.addAll(List.of("--socket", agent.socketPath().toString()));
        return run(new ProcessBuilder(cmd));
    }

    private Run run(ProcessBuilder pb) throws Exception {
        Path out = dir.resolve("out");
        Path err = dir.resolve("err");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("scaleup still running after 30 s");
        }
        return new Run(p.exitValue(), read(out), read(err));
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8);
    }

    private static String platform() {
        String arch = System.getProperty("os.arch");
        return "linux-" + (arch.equals("amd64") || arch.equals("x86_64") ? "x86_64" : arch);
    }
}

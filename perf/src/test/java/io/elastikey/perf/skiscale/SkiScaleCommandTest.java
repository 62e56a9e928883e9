// SkiScaleCommandTest -- defaults, --quick, the matrix it plans and the load generator options of each run.
package io.elastikey.perf.skiscale;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;

import picocli.CommandLine;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SkiScaleCommandTest {
    @TempDir
    Path directory;

    @Test
    void theDefaultsAreTheUseCaseAndQuickIsAFirstLook() {
        SkiScaleCommand.Settings full = parse().settings();
        SkiScaleCommand.Settings quick = parse("--quick", "--duration", "7s").settings();

        assertThat(full.keys()).isEqualTo(1_000_000);
        assertThat(full.rsaKeys()).isEqualTo(10_000);
        assertThat(full.openDuration()).isEqualTo(Duration.ofMinutes(5));
        assertThat(full.duration()).isEqualTo(Duration.ofSeconds(30));
        assertThat(full.rate()).isEqualTo(21_000);
        assertThat(full.dataDir().toString()).endsWith("elastikey-bench/ski-scale-1000000");
        assertThat(quick.keys()).isEqualTo(100_000);
        assertThat(quick.rsaKeys()).isEqualTo(1_000);
        assertThat(quick.openDuration()).isEqualTo(Duration.ofSeconds(20));
        assertThat(quick.duration()).as("an explicit option wins over --quick").isEqualTo(Duration.ofSeconds(7));
        assertThat(quick.dataDir().toString()).endsWith("elastikey-bench/ski-scale-100000-rsa1000");
    }

    @Test
    void theMatrixComparesTheFirstKeysWithAllKeysAndRunsRsaLast() throws Exception {
        SkiScaleCommand command = parse("--keys", "3", "--rsa-keys", "1", "--small-keys", "2");
        ScaleDataSet data = completeDataSet(3, 1);

        List<ScaleRun> plan = command.plan(command.settings(), data);

        assertThat(plan).extracting(ScaleRun::name).containsExactly(
                "ecdsa-h2-closed-2", "ecdsa-h2-closed-all-uniform", "ecdsa-h2-closed-all-zipf",
                "ecdsa-h1-closed-2", "ecdsa-h1-closed-all-uniform", "ecdsa-h1-closed-all-zipf",
                "ecdsa-h2-open-all-uniform", "ecdsa-h1-open-all-uniform",
                "ecdsa-h2-open-all-zipf", "ecdsa-h1-open-all-zipf",
                "rsa-h1-closed", "rsa-h1-open");
        assertThat(plan.get(2).baseline()).isEqualTo("ecdsa-h2-closed-2");
        assertThat(plan.get(5).baseline()).isEqualTo("ecdsa-h1-closed-2");
        assertThat(String.join(" ", plan.get(0).loadgenArgs("127.0.0.1:1", data.pki(), 1000, null)))
                .contains("--keys " + data.ecKeyList(), "--key-limit 2", "--key-order random", "--method SIGN",
                        "--http 2 --connections 2 --closed-loop --concurrency 256");
        assertThat(String.join(" ", plan.get(9).loadgenArgs("127.0.0.1:1", data.pki(), 1000, null)))
                .contains("--key-order zipf --zipf-exponent 1.1", "--http 1.1 --connections 64 --rate 21000",
                        "--duration 300000ms")
                .doesNotContain("--key-limit");
        assertThat(String.join(" ", plan.get(10).loadgenArgs("127.0.0.1:1", data.pki(), 1000, null)))
                .contains("--keys " + data.rsaKeyList(), "--method RSA", "--http 1.1 --connections 8 --closed-loop "
                        + "--concurrency 16");
    }

    @Test
    void runsCanBeChosenByGroup() throws Exception {
        SkiScaleCommand command = parse("--keys", "3", "--rsa-keys", "1", "--runs", "rsa");

        assertThat(command.plan(command.settings(), completeDataSet(3, 1))).extracting(ScaleRun::name)
                .containsExactly("rsa-h1-closed", "rsa-h1-open");
    }

    @Test
    void theRestartIsNoRowOfThePlanButItsOwnStep() throws Exception {
        SkiScaleCommand command = parse("--keys", "3", "--rsa-keys", "1", "--runs", "restart");

        assertThat(command.settings().groups()).containsExactly("restart");
        assertThat(command.plan(command.settings(), completeDataSet(3, 1))).isEmpty();
        assertThat(parse().settings().groups()).containsExactly("closed", "open", "rsa", "restart");
    }

    @Test
    void badOptionsAreUsageErrors() {
        assertThat(usageError("--runs", "closed,soak")).contains("--runs");
        assertThat(usageError("--rsa-share", "1.5")).contains("--rsa-share");
        assertThat(usageError("--restart-window", "5s")).contains("--restart-window");
        assertThat(usageError("--server-set", "keys.cache")).contains("NAME=VALUE");
        assertThat(usageError("--elastikey", directory.resolve("none").toString())).contains("launcher script");
    }

    private SkiScaleCommand parse(String... args) {
        SkiScaleCommand command = new SkiScaleCommand();
        new CommandLine(command).parseArgs(args);
        return command;
    }

    private String usageError(String... args) {
        StringWriter err = new StringWriter();
        CommandLine commandLine = new CommandLine(new SkiScaleCommand()).setErr(new PrintWriter(err));
        assertThat(commandLine.execute(args)).as("exit status; stderr: %s", err).isEqualTo(2);
        return err.toString();
    }

    /** A data set directory whose marker says it is complete, so ensure() reuses it and runs nothing. */
    private ScaleDataSet completeDataSet(long ec, long rsa) throws Exception {
        Properties marker = new Properties();
        marker.setProperty("ec256", Long.toString(ec));
        marker.setProperty("rsa2048", Long.toString(rsa));
        marker.setProperty("created", "earlier");
        try (var out = Files.newOutputStream(directory.resolve(ScaleDataSet.MARKER))) {
            marker.store(out, null);
        }
        return ScaleDataSet.ensure(Path.of("./elastikey"), directory, ec, rsa, false,
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    }
}

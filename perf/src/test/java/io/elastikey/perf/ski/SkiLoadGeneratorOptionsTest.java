// SkiLoadGeneratorOptionsTest -- the command line: defaults, conversions, and usage errors for bad combinations.
package io.elastikey.perf.ski;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.elastikey.perf.ski.SkiWorkload.KeyOrder;
import io.elastikey.protocol.ski.SkiHash;
import io.elastikey.protocol.ski.SkiHttpVersion;
import io.elastikey.protocol.ski.SkiMethod;
import picocli.CommandLine;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SkiLoadGeneratorOptionsTest {
    private static final String[] REQUIRED = {"--target", "localhost:8443", "--pki", "pki", "--keys", "keys.pem"};

    @Test
    void defaultsAreAnOpenLoopOfEcdheOverHttp2() {
        SkiLoadGenerator generator = parse();

        assertThat(generator.method()).isEqualTo(SkiMethod.ECDHE);
        assertThat(generator.protocol).isEqualTo(SkiLoadGenerator.Protocol.SKI);
        assertThat(generator.hash).isEqualTo(SkiHash.SHA256);
        assertThat(generator.http).isEqualTo(SkiHttpVersion.HTTP_2);
        assertThat(generator.closedLoop).isFalse();
        assertThat(generator.rate).isEqualTo(1000);
        assertThat(generator.measurement.duration()).isEqualTo(Duration.ofSeconds(30));
        assertThat(generator.keyOrder).isEqualTo(KeyOrder.ROUND_ROBIN);
        assertThat(generator.schemeOrNull()).isNull();
    }

    @Test
    void theKeylessCommandDefaultsToEcdsaSignaturesOfHashValues() {
        SkiLoadGenerator generator = new SkiLoadGenerator(SkiLoadGenerator.Protocol.KEYLESS);
        new picocli.CommandLine(generator).parseArgs(REQUIRED);

        assertThat(generator.protocol).isEqualTo(SkiLoadGenerator.Protocol.KEYLESS);
        assertThat(generator.method()).isEqualTo(SkiMethod.ECDSA_DIGEST);
    }

    @Test
    void parsesEveryOptionInItsOwnTerms() {
        SkiLoadGenerator generator = parse("--method", "rsa-raw", "--hash", "md5-sha1", "--http", "1.1",
                "--connections", "8", "--closed-loop", "--concurrency", "64", "--duration", "500ms", "--warmup", "2m",
                "--key-order", "random", "--scheme", "rsa_pss_rsae_sha256", "--verify-sample", "0",
                "--target", "[::1]:9443");

        assertThat(generator.method).isEqualTo(SkiMethod.RSA_RAW);
        assertThat(generator.hash).isEqualTo(SkiHash.MD5_SHA1);
        assertThat(generator.http).isEqualTo(SkiHttpVersion.HTTP_1_1);
        assertThat(generator.measurement.duration()).isEqualTo(Duration.ofMillis(500));
        assertThat(generator.measurement.warmup()).isEqualTo(Duration.ofMinutes(2));
        assertThat(generator.keyOrder).isEqualTo(KeyOrder.RANDOM);
        assertThat(generator.targetAddress().getPort()).isEqualTo(9443);
        assertThat(generator.targetAddress().getAddress().isLoopbackAddress()).isTrue();
        assertThat(generator.clientOptions(null).connections()).isEqualTo(8);
        assertThat(generator.clientOptions(null).httpVersion()).isEqualTo(SkiHttpVersion.HTTP_1_1);
    }

    @Test
    void zipfOrderTakesItsExponentAndAKeyLimit() {
        SkiLoadGenerator generator = parse("--key-order", "zipf", "--zipf-exponent", "1.3", "--key-limit", "1000");

        assertThat(generator.keyOrder).isEqualTo(KeyOrder.ZIPF);
        assertThat(generator.zipfExponent).isEqualTo(1.3);
        assertThat(generator.keyLimit).isEqualTo(1000);
        assertThat(parse().zipfExponent).isEqualTo(1.1);
        assertThat(parse().keyLimit).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "--method=ECDSA", "--hash=SHA-3", "--http=3", "--duration=soon", "--key-order=sorted", "--duration=5x"})
    void aValueOfNoKnownNameIsAUsageError(String option) {
        assertUsageError(option, option.substring(option.indexOf('=') + 1));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "--rate=0", "--duration=0", "--warmup=-1", "--connections=0", "--verify-sample=-1", "--timeout-ms=0",
        "--scheme=ecdsa_p256", "--key-limit=0", "--zipf-exponent=0", "--target=localhost", "--target=localhost:0",
        "--target=localhost:http"})
    void anOutOfRangeValueIsAUsageError(String option) {
        assertUsageError(option, option.substring(2, option.indexOf('=')));
    }

    @Test
    void credentialsComeFromADirectoryOrThreeFilesNotBoth() {
        assertThat(run("--target", "h:1", "--keys", "k", "--pki", "p", "--cert", "c")).contains("either --pki");
        assertThat(run("--target", "h:1", "--keys", "k", "--cert", "c", "--key", "k")).contains("go together");
        assertThat(run("--target", "h:1", "--keys", "k")).contains("either --pki");
    }

    private static SkiLoadGenerator parse(String... args) {
        SkiLoadGenerator generator = new SkiLoadGenerator();
        List<String> all = new ArrayList<>(List.of(args));
        if (!all.contains("--target")) {
            all.addAll(List.of(REQUIRED[0], REQUIRED[1]));
        }
        all.addAll(List.of(REQUIRED).subList(2, REQUIRED.length));
        new CommandLine(generator).parseArgs(all.toArray(String[]::new));
        generator.validate();
        return generator;
    }

    private static void assertUsageError(String option, String mentioned) {
        String[] args = {REQUIRED[0], REQUIRED[1], REQUIRED[2], REQUIRED[3], REQUIRED[4], REQUIRED[5], option};
        assertThat(run(args)).contains(mentioned);
    }

    /** Runs the command line as picocli would from main, and returns its error output; the exit status must be 2. */
    private static String run(String... args) {
        StringWriter err = new StringWriter();
        CommandLine commandLine = new CommandLine(new SkiLoadGenerator()).setErr(new PrintWriter(err));
        int status = commandLine.execute(args);
        assertThat(status).as("exit status; stderr: %s", err).isEqualTo(2);
        return err.toString();
    }
}

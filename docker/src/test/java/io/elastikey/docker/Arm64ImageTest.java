// Arm64ImageTest -- the suite on an aarch64 JVM: docker/scripts/arm64-check.sh, in the linux/arm64 image under
// qemu-user (natively on an arm64 host). Skipped, in one line saying why, where binfmt_misc cannot run it.
package io.elastikey.docker;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The script generates keys and starts the key server on the aarch64 JVM, with BoringSSL, epoll, ACCP and the
 * libscaleup JNI library loaded (it checks each in the log); the key server answers SKI requests over mutual TLS
 * from the load generator on the host (every answer verified). Under emulation this takes minutes, so
 * {@code -Delastikey.docker.arm64=false} leaves it out of a run.
 */
class Arm64ImageTest {

    /** The script's exit code for "cannot run here", with its reason on the last line. */
    private static final int CANNOT_RUN = 77;

    @Test
    void theKeyServerRunsOnAnAarch64JvmWithItsNativePartsLoaded() throws Exception {
        Assumptions.assumeTrue(Boolean.parseBoolean(System.getProperty("elastikey.docker.arm64", "true")),
                "-Delastikey.docker.arm64=false: the aarch64 check is left out of this run");
        Docker.requireImages();
        Path script = Path.of(System.getProperty("elastikey.docker.dir", "."), "scripts", "arm64-check.sh");

        Process p = new ProcessBuilder(script.toString()).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int code = p.waitFor();
        System.out.println(output);

        String[] lines = output.strip().split("\n");
        Assumptions.assumeTrue(code != CANNOT_RUN, lines[lines.length - 1]);
        assertThat(code).as(output).isZero();
        assertThat(output).contains("loaded on aarch64: ACCP").contains("loaded on aarch64: libscaleup JNI library")
                .contains("arm64-check: passed");
    }
}

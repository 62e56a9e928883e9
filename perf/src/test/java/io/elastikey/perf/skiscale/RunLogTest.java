// RunLogTest -- every line into the file, every tenth progress line and every other line onto the console.
package io.elastikey.perf.skiscale;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunLogTest {
    @TempDir
    Path directory;

    @Test
    void theConsoleGetsEveryTenthProgressLineAndTheReport() throws Exception {
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        Path file = directory.resolve("loadgen.log");
        try (PrintStream log = new PrintStream(new RunLog(file, new PrintStream(console, true, StandardCharsets.UTF_8),
                10), true, StandardCharsets.UTF_8)) {
            log.println("SKI SIGN over 1,000 key(s)");
            for (int second = 1; second <= 20; second++) {
                log.printf("%5ds         sent   21,000/s  done   21,000/s  errors 0%n", second);
            }
            log.print("throughput  21,000 answers/s"); // no newline: written on close
        }

        assertThat(Files.readAllLines(file)).hasSize(22);
        assertThat(console.toString(StandardCharsets.UTF_8).lines().toList()).containsExactly(
                "    SKI SIGN over 1,000 key(s)",
                "       10s         sent   21,000/s  done   21,000/s  errors 0",
                "       20s         sent   21,000/s  done   21,000/s  errors 0",
                "    throughput  21,000 answers/s");
    }
}

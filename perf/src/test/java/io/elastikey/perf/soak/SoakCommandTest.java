// SoakCommandTest -- the soak's wiring end to end in seconds: real key server, edge and origin processes, result files.
package io.elastikey.perf.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.elastikey.perf.JvmFlags;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class SoakCommandTest {
    @TempDir
    Path directory;

    @Test
    void aShortSoakStartsTheThreeServersCountsAnswersAndWritesItsResults() throws Exception {
        Path launcher = standInLauncher();
        Path out = directory.resolve("out");
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        SoakCommand soak = new SoakCommand().printTo(new PrintStream(console, true, StandardCharsets.UTF_8));

        CommandLine command = new CommandLine(soak);
        command.setErr(new java.io.PrintWriter(console, true, StandardCharsets.UTF_8));
        command.setExecutionExceptionHandler((e, cl, parsed) -> {
            e.printStackTrace(new PrintStream(console, true, StandardCharsets.UTF_8));
            return 3;
        });
        int status = command.execute("--elastikey", launcher.toString(), "--out", out.toString(),
                "--rate", "20", "--duration", "5s", "--progress-every", "1");

        String printed = console.toString(StandardCharsets.UTF_8);
        assertThat(out.resolve("results.json")).as(printed).exists();
        assertThat(out.resolve("results.md")).exists();
        assertThat(out.resolve("timeline.png")).exists();
        List<String> timeline = Files.readAllLines(out.resolve("timeline.csv"));
        assertThat(timeline.get(0)).startsWith("second,offered,answered,errors,p50_ms,p99_ms")
                .contains("keyserver_rss_mib", "edge_rss_mib", "origin_rss_mib", "keyserver_fds");
        assertThat(timeline).hasSizeGreaterThanOrEqualTo(5);
        assertThat(answered(out.resolve("results.json"))).as(printed).isPositive();
        assertThat(Files.readString(out.resolve("results.md"))).contains("# Soak", "RSS growth", "| keyserver |");
        assertThat(printed).contains("answers", "RSS MiB");
        assertThat(status).as("0 when every verdict is met, 1 when one is not; never a usage error or a crash")
                .isIn(0, 1);
    }

    /** A script that runs the servers from this test's class path, as the launcher would ({@code exec java}). */
    private Path standInLauncher() throws Exception {
        Path script = directory.resolve("elastikey");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String flags = String.join(" ", JvmFlags.fromBuild());
        Files.writeString(script, "#!/bin/sh\nexec " + java + " " + flags + " -Xmx256m -cp '"
                + System.getProperty("java.class.path") + "' " + SuiteMain.class.getName() + " \"$@\"\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        return script;
    }

    private static long answered(Path resultsJson) throws Exception {
        try (JsonParser p = new JsonFactory().createParser(resultsJson.toFile())) {
            while (p.nextToken() != null) {
                if (p.currentToken() == JsonToken.FIELD_NAME && p.currentName().equals("answered")) {
                    p.nextToken();
                    return p.getLongValue();
                }
            }
        }
        return -1;
    }
}

// MainTest -- the command line: help everywhere, the demo end to end at a small size, pki init.
package io.elastikey.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.nio.file.attribute.PosixFilePermission;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class MainTest {

    /** A demo handshake line's "key-server operations +1 (2,430 -> 2,431)". */
    private static final Pattern KEY_OPERATIONS = Pattern.compile("key-server operations \\+(\\d+) \\(([\\d,]+) -> ([\\d,]+)\\)");

    @TempDir
    Path tmp;

    /** Runs the command tree with stdout captured; returns exit code and output. */
    private static Result run(String... args) {
        PrintStream saved = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            CommandLine cl = Main.commandLine();
            cl.setOut(new java.io.PrintWriter(System.out, true));
            int code = cl.execute(args);
            return new Result(code, buf.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(saved);
        }
    }

    record Result(int code, String out) {
    }

    @Test
    void everyCommandHasHelp() {
        CommandLine root = Main.commandLine();
        assertThat(run("--help").code()).isZero();
        for (String name : root.getSubcommands().keySet()) {
            Result r = run(name, "--help");
            assertThat(r.code()).as(name).isZero();
            assertThat(r.out()).as(name).contains("Usage:");
        }
        assertThat(run("pki", "init", "--help").out()).contains("--pki");
        assertThat(run("loadgen", "ski", "--help").out()).contains("--target", "--rate", "--verify-sample");
        assertThat(run("keys", "--help").out()).contains("import", "generate", "export-public");
        assertThat(run("loadgen", "keylist", "--help").out()).contains("--from", "--out", "--type");
        assertThat(run("loadgen", "resize", "--help").out()).contains("--low-percent", "--load-percent",
                "resize-idle-priority").doesNotContain("WARN");
        assertThat(run("bench", "ski-scale", "--help").out()).contains("--quick", "--keys", "--open-duration");
    }

    /**
     * Every command's {@code --help}, subcommands of subcommands included, formats without a picocli warning. Picocli
     * runs each description, header and footer through {@code String.format}; an unescaped {@code %} ("80% of")
     * makes it print "[picocli WARN] Could not format ..." on stderr and show the raw text. That warning goes to the
     * stream picocli's tracer took from {@code System.err} when it was loaded, which {@code System.setErr} no longer
     * reaches, so the test points the tracer itself at a buffer.
     */
    @Test
    void everyCommandsHelpFormatsWithoutAPicocliWarning() throws Exception {
        List<List<String>> paths = new ArrayList<>();
        commandPaths(Main.commandLine(), new ArrayList<>(), paths);
        assertThat(paths).as("the tree reaches nested commands")
                .contains(List.of("bench", "soak"), List.of("bench", "chaos"), List.of("loadgen", "resize"),
                        List.of("keys", "generate"), List.of("store", "serve"), List.of("loadgen", "keyless"));
        ByteArrayOutputStream warnings = new ByteArrayOutputStream();
        try (TracerCapture capture = TracerCapture.into(warnings)) {
            CommandLine.tracer().warn("probe %s", "of the capture");
            assertThat(warnings.toString(StandardCharsets.UTF_8)).as("the tracer writes to the capture")
                    .contains("[picocli WARN] probe of the capture");
            List<String> warned = new ArrayList<>();
            for (List<String> path : paths) {
                List<String> args = new ArrayList<>(path);
                args.add("--help");
                warnings.reset();
                Result r = run(args.toArray(String[]::new));
                assertThat(r.code()).as(String.join(" ", args)).isZero();
                assertThat(r.out()).as(String.join(" ", args)).contains("Usage:")
                        .as("the usage line names the command as it was typed")
                        .contains("Usage: elastikey " + String.join(" ", path) + " ");
                String printed = warnings.toString(StandardCharsets.UTF_8) + r.out();
                if (printed.contains("[picocli WARN]")) {
                    warned.add(String.join(" ", args) + ": " + printed.lines()
                            .filter(l -> l.contains("[picocli WARN]")).toList());
                }
            }
            assertThat(warned).as("help texts with a '%' that is not '%%' or '%n'").isEmpty();
        }
    }

    /** Every command's path below {@code command} (aliases once), depth first. */
    private static void commandPaths(CommandLine command, List<String> prefix, List<List<String>> paths) {
        for (CommandLine sub : new java.util.LinkedHashSet<>(command.getSubcommands().values())) {
            List<String> path = new ArrayList<>(prefix);
            path.add(sub.getCommandName());
            paths.add(path);
            commandPaths(sub, path, paths);
        }
    }

    /** Points picocli's tracer (which holds the {@code System.err} of its class loading) at a buffer, at WARN. */
    private record TracerCapture(java.lang.reflect.Field stream, PrintStream saved, CommandLine.TraceLevel level)
            implements AutoCloseable {
        static TracerCapture into(ByteArrayOutputStream buffer) throws ReflectiveOperationException {
            CommandLine.Tracer tracer = CommandLine.tracer();
            java.lang.reflect.Field stream = CommandLine.Tracer.class.getDeclaredField("stream");
            stream.setAccessible(true);
            TracerCapture capture = new TracerCapture(stream, (PrintStream) stream.get(tracer), tracer.getLevel());
            stream.set(tracer, new PrintStream(buffer, true, StandardCharsets.UTF_8));
            tracer.setLevel(CommandLine.TraceLevel.WARN);
            return capture;
        }

        @Override
        public void close() throws IllegalAccessException {
            stream.set(CommandLine.tracer(), saved);
            CommandLine.tracer().setLevel(level);
        }
    }

    @Test
    void keysCommandsShareTheDataDirectory() {
        String data = tmp.resolve("data").toString();
        Result generated = run("keys", "generate", "--count", "5", "--data", data);
        assertThat(generated.code()).isZero();
        assertThat(generated.out()).contains("generated 5 ec256");
        assertThat(run("keys", "count", "--data", data).out().strip()).isEqualTo("5");
        assertThat(tmp.resolve("data/kek")).exists();
        assertThat(tmp.resolve("data/pki/ca.pem")).exists();
    }

    @Test
    void aFailingCommandSaysWhyInOneLine() {
        java.io.StringWriter err = new java.io.StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setErr(new java.io.PrintWriter(err, true));
        Path missing = tmp.resolve("no-such.conf");
        int code = cl.execute("keyserver", "--config", missing.toString());
        assertThat(code).isEqualTo(1);
        assertThat(err.toString().strip())
                .isEqualTo("elastikey keyserver: config file " + missing + " does not exist or is not a file");
    }

    @Test
    void unknownCommandIsAUsageError() {
        assertThat(run("no-such-command").code()).isEqualTo(2);
    }

    @Test
    void storeDemoLoadsScalesUpAndDownAtASmallSize() {
        Result r = run("store-demo", "--entries", "3000", "--lookups", "5000", "--data", tmp.resolve("d").toString());
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("scale up to 100%: DONE", "scale down to 10%: DONE", "100% budget");
        // At 100% every lookup is a memory hit.
        String full = r.out().lines().filter(l -> l.startsWith("100% budget")).findFirst().orElseThrow();
        assertThat(full).contains("3,000").contains("100.0%");
    }

    @Test
    void theDemoServesHttpsThroughTheEdgeWithKeysInTheKeyServer() throws Exception {
        Path data = tmp.resolve("demo");
        Result r = run("demo", "--data", data.toString());
        assertThat(r.code()).as(r.out()).isZero();
        List<String> handshakes = r.out().lines().filter(l -> l.contains("key-server operations")).toList();
        assertThat(handshakes).hasSize(5);
        // The edge's warm-up made its own handshakes through the key server before the demo's first.
        assertThat(r.out()).containsPattern("warm-up +[1-9][0-9,]* handshakes");
        // Four full handshakes, each one key-server operation more; the resumed one adds none.
        long previousAfter = -1;
        for (int i = 0; i < handshakes.size(); i++) {
            Matcher m = KEY_OPERATIONS.matcher(handshakes.get(i));
            assertThat(m.find()).as(handshakes.get(i)).isTrue();
            long added = Long.parseLong(m.group(1));
            long before = Long.parseLong(m.group(2).replace(",", ""));
            long after = Long.parseLong(m.group(3).replace(",", ""));
            assertThat(added).as(handshakes.get(i)).isEqualTo(after - before).isEqualTo(i < 4 ? 1 : 0);
            if (i > 0) {
                assertThat(before).as("nothing else used the key server in between").isEqualTo(previousAfter);
            }
            previousAfter = after;
            assertThat(handshakes.get(i)).contains(i < 4 ? " full " : " resumed ").contains("HTTP/1.1 200 OK");
        }
        assertThat(handshakes.get(0)).contains("TLSv1.3").contains("localhost");
        assertThat(handshakes.get(3)).contains("TLSv1.2").contains("TLS_RSA_WITH_AES_128_GCM_SHA256");
        assertThat(r.out()).contains("X-Cache: MISS").contains("X-Cache: HIT");
        assertThat(r.out().indexOf("X-Cache: MISS")).isLessThan(r.out().indexOf("X-Cache: HIT"));
        // The edge's directory holds certificates only.
        try (var files = Files.walk(data.resolve("edge/certs"))) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                assertThat(Files.readString(file)).doesNotContain("PRIVATE KEY");
            }
        }
    }

    @Test
    void pkiInitWritesOwnerOnlyKeys() throws Exception {
        Path dir = tmp.resolve("pki");
        assertThat(run("pki", "init", "--pki", dir.toString()).code()).isZero();
        for (String file : new String[] {"ca.pem", "ca.key", "server.pem", "server.key", "client.pem", "client.key"}) {
            assertThat(dir.resolve(file)).exists();
        }
        assertThat(Files.getPosixFilePermissions(dir.resolve("server.key")))
                .containsOnly(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
        // A second run keeps the same CA.
        String ca = Files.readString(dir.resolve("ca.pem"));
        assertThat(run("pki", "init", "--pki", dir.toString()).code()).isZero();
        assertThat(Files.readString(dir.resolve("ca.pem"))).isEqualTo(ca);
    }
}

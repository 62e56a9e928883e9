// LauncherScriptTest -- the real ./elastikey script: the caller's relative paths, and one build at a time.
package io.elastikey.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.protocol.pki.DevPki;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the repository's {@code elastikey} script itself, copied into an "installation" in a temporary directory with
 * {@code jvm.properties}, a {@code launcher/target} that runs this build's classes (a jar whose manifest lists the
 * test class path), and a {@code ./mvnw} of the test's own. Everything the script does is its real code: the
 * build check, the lock, the build command in the installation, the {@code java} command line. Only the Maven build
 * is replaced, by one that records its runs and holds still until the test lets it finish, so the test knows, without
 * a timing, that a second command started while the first was building.
 */
class LauncherScriptTest {
    private static final Path REPOSITORY = repository();
    /** A build that must not run: the installation is built. */
    private static final String NO_BUILD = "echo 'mvnw called' >&2; exit 1\n";
    /** A build that records its run and waits until the test creates build-release. */
    private static final String HELD_BUILD = """
            here="$(cd "$(dirname "$0")" && pwd)"
            echo "$PWD $*" >> "$here/builds.log"
            touch "$here/build-started"
            while [ ! -e "$here/build-release" ]; do sleep 0.05; done
            """;

    @TempDir
    Path tmp;

    @Test
    void relativePathsOnTheCommandLineAreTheCallersWhileDefaultsStayInTheInstallation() throws Exception {
        Path home = installation(tmp.resolve("elastikey"), NO_BUILD);
        markBuilt(home);
        Path caller = Files.createDirectories(tmp.resolve("caller"));
        DevPki.loadOrCreate(caller.resolve("in")); // CA, server and client: three keys with their certificates

        Process imported = start(caller, "import", home.resolve("elastikey").toString(), "keys", "import", "./in",
                "--data", "./d");
        assertThat(finish(imported)).as(output(caller, "import")).isZero();
        Process counted = start(caller, "count", home.resolve("elastikey").toString(), "keys", "count",
                "--data", "d");
        assertThat(finish(counted)).as(output(caller, "count")).isZero();

        assertThat(Files.readString(caller.resolve("count.out")).strip()).isEqualTo("3");
        assertThat(caller.resolve("d/keys")).isDirectory();
        assertThat(home.resolve("d")).doesNotExist();

        // Without --data: elastikey-data in the installation, whichever directory the command runs in.
        assertThat(finish(start(caller, "default", home.resolve("elastikey").toString(), "keys", "count")))
                .as(output(caller, "default")).isZero();
        assertThat(home.resolve("elastikey-data/keys")).isDirectory();
        assertThat(caller.resolve("elastikey-data")).doesNotExist();
    }

    @Test
    void twoCommandsStartedDuringABuildBuildOnceTheSecondWaitingForTheFirst() throws Exception {
        Path home = installation(tmp.resolve("elastikey"), HELD_BUILD);
        Path caller = Files.createDirectories(tmp.resolve("caller"));
        String script = home.resolve("elastikey").toString();
        Process first = start(caller, "first", script, "--version");
        Process second = null;
        try {
            await("the first command's build started", () -> Files.exists(home.resolve("build-started")));
            second = start(caller, "second", script, "--version");
            await("the second command waits for the first one's build", () -> {
                assertThat(Files.readAllLines(home.resolve("builds.log"))).as("builds running").hasSize(1);
                return Files.readString(caller.resolve("second.err")).contains("waiting for it to finish");
            });
            Files.createFile(home.resolve("build-release"));

            assertThat(finish(first)).as(output(caller, "first")).isZero();
            assertThat(finish(second)).as(output(caller, "second")).isZero();
        } finally {
            first.destroyForcibly();
            if (second != null) {
                second.destroyForcibly();
            }
        }
        assertThat(Files.readAllLines(home.resolve("builds.log")))
                .containsExactly(home + " -B -q -DskipTests package");
        assertThat(Files.readString(caller.resolve("first.out"))).startsWith("elastikey ");
        assertThat(Files.readString(caller.resolve("second.out"))).startsWith("elastikey ");
        assertThat(Files.readAllLines(caller.resolve("second.err")))
                .containsExactly("elastikey: another elastikey build is running in " + home
                        + "; waiting for it to finish...");
        assertThat(Files.readString(caller.resolve("first.err"))).doesNotContain("waiting");
    }

    /**
     * An installation in {@code root}: the real script and jvm.properties, {@code mvnw} running {@code build}, and
     * {@code launcher/target/lib/classpath.jar} naming this test's class path, so {@code java -cp
     * launcher/target/classes:launcher/target/lib/*} runs the launcher as built.
     */
    private static Path installation(Path root, String build) throws IOException {
        Files.createDirectories(root.resolve("launcher/target/classes"));
        Path lib = Files.createDirectories(root.resolve("launcher/target/lib"));
        Path script = Files.copy(REPOSITORY.resolve("elastikey"), root.resolve("elastikey"),
                StandardCopyOption.COPY_ATTRIBUTES);
        script.toFile().setExecutable(true);
        Path properties = Files.copy(REPOSITORY.resolve("jvm.properties"), root.resolve("jvm.properties"));
        Files.setLastModifiedTime(properties, FileTime.from(Instant.now().minus(Duration.ofHours(1))));
        Path mvnw = Files.writeString(root.resolve("mvnw"), "#!/usr/bin/env bash\n" + build);
        Files.setPosixFilePermissions(mvnw, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setLastModifiedTime(mvnw, FileTime.from(Instant.now().minus(Duration.ofHours(1))));
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, testClassPath());
        try (OutputStream out = Files.newOutputStream(lib.resolve("classpath.jar"));
             JarOutputStream jar = new JarOutputStream(out, manifest)) {
            jar.flush();
        }
        return root;
    }

    private static void markBuilt(Path home) throws IOException {
        Files.writeString(home.resolve("launcher/target/.elastikey-built"), "");
    }

    /** This JVM's class path (surefire's, not its booter jar's) as manifest URLs. */
    private static String testClassPath() {
        String path = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> urls = new ArrayList<>();
        for (String entry : path.split(File.pathSeparator)) {
            if (!entry.isBlank()) {
                urls.add(Path.of(entry).toAbsolutePath().toUri().toString());
            }
        }
        return String.join(" ", urls);
    }

    /** Starts {@code command} in {@code directory}, its output in NAME.out and NAME.err there. */
    private static Process start(Path directory, String name, String... command) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile())
                .redirectOutput(directory.resolve(name + ".out").toFile())
                .redirectError(directory.resolve(name + ".err").toFile());
        String javaBin = Path.of(System.getProperty("java.home"), "bin").toString();
        builder.environment().put("PATH", javaBin + File.pathSeparator + System.getenv("PATH"));
        builder.environment().remove("ELASTIKEY_JAVA_OPTS");
        return builder.start();
    }

    private static int finish(Process process) throws InterruptedException {
        if (!process.waitFor(2, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError("the command did not end");
        }
        return process.exitValue();
    }

    private static String output(Path directory, String name) throws IOException {
        return Files.readString(directory.resolve(name + ".out")) + Files.readString(directory.resolve(name + ".err"));
    }

    /**
     * Polls {@code condition} until it holds (an assertion in it fails at once); gives up after a minute. Nothing is
     * asserted about time.
     */
    private static void await(String what, Callable<Boolean> condition) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.call()) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("gave up waiting until " + what);
    }

    /** The repository this build runs in: surefire names its jvm.properties. */
    private static Path repository() {
        String properties = System.getProperty("elastikey.jvm.properties");
        Path root = properties != null ? Path.of(properties).getParent() : Path.of("").toAbsolutePath().getParent();
        return root.toAbsolutePath().normalize();
    }
}

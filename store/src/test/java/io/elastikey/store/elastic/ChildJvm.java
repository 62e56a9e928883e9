// ChildJvm -- starts a main class of the test sources in a JVM of its own, with the build's JVM flags.
package io.elastikey.store.elastic;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The command line every child JVM of these tests runs with: this JVM's {@code java} binary and
 * classpath, and the flags the build passes in the system property {@code elastikey.jvm.flags}
 * (read from the reactor's {@code jvm.properties} when a test runs outside Maven).
 *
 * <p>Surefire's system property can hold only the pom's default (the jvm.properties line reaches
 * its late-bound argLine, not its system properties), so the module and Chronicle flags this JVM
 * was started with are added too: Chronicle Map cannot start on Java 17 without the --add-opens.
 */
final class ChildJvm {

    private ChildJvm() {
    }

    /** The finished child: its exit code and everything it wrote to stdout and stderr. */
    record Result(int exitCode, String output) {
    }

    /**
     * {@code java <jvmArgs> -cp <classpath> <mainClass> <args>}; {@code jvmArgs} normally starts
     * with {@link #buildJvmFlags()}.
     */
    static List<String> command(List<String> jvmArgs, Class<?> mainClass, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass.getName());
        cmd.addAll(List.of(args));
        return cmd;
    }

    /**
     * Runs the command with stderr merged into stdout, which goes to {@code outputFile}. A child
     * still running after {@code timeoutSeconds} is killed and reported as a failure: a guard
     * against hangs, not a timing check.
     */
    static Result run(List<String> command, Path outputFile, long timeoutSeconds)
            throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(outputFile.toFile()).start();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError("child JVM still running after " + timeoutSeconds + " s; output:\n"
                    + Files.readString(outputFile));
        }
        return new Result(p.exitValue(), Files.readString(outputFile));
    }

    /** The flags of {@code elastikey.jvm.flags}, then this JVM's module and Chronicle flags it lacks. */
    static List<String> buildJvmFlags() {
        String flags = System.getProperty("elastikey.jvm.flags", "").trim();
        if (flags.isEmpty()) {
            flags = flagsFromJvmProperties();
        }
        Set<String> out = new LinkedHashSet<>();
        for (String f : flags.split("\\s+")) {
            if (!f.isEmpty()) {
                out.add(f);
            }
        }
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (arg.startsWith("--add-opens") || arg.startsWith("--add-exports") || arg.startsWith("-Dchronicle.")) {
                out.add(arg);
            }
        }
        return new ArrayList<>(out);
    }

    private static String flagsFromJvmProperties() {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path file = d.resolve("jvm.properties");
            if (Files.isRegularFile(file)) {
                Properties props = new Properties();
                try (InputStream in = Files.newInputStream(file)) {
                    props.load(in);
                } catch (IOException e) {
                    throw new IllegalStateException("cannot read " + file, e);
                }
                return props.getProperty("elastikey.jvm.flags", "");
            }
        }
        throw new IllegalStateException("system property elastikey.jvm.flags is not set and no jvm.properties "
                + "was found above " + Path.of("").toAbsolutePath());
    }
}

// ChildJvm -- starts a main class of the test sources in a JVM of its own, with the build's JVM flags.
package io.elastikey.store.elastic;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * The command line every child JVM of these tests runs with: this JVM's {@code java} binary and
 * classpath, and the flags of the reactor's {@code jvm.properties} (the file the launcher and
 * surefire read too; the build passes its path in {@code elastikey.jvm.properties}).
 */
public final class ChildJvm {

    private ChildJvm() {
    }

    /** The finished child: its exit code and everything it wrote to stdout and stderr. */
    public record Result(int exitCode, String output) {
    }

    /**
     * {@code java <jvmArgs> -cp <classpath> <mainClass> <args>}; {@code jvmArgs} normally starts
     * with {@link #buildJvmFlags()}.
     */
    public static List<String> command(List<String> jvmArgs, Class<?> mainClass, String... args) {
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
    public static Result run(List<String> command, Path outputFile, long timeoutSeconds)
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

    /** The flags of {@code jvm.properties}, one list element each. */
    public static List<String> buildJvmFlags() {
        List<String> out = new ArrayList<>();
        for (String f : flagsFromJvmProperties().trim().split("\\s+")) {
            if (!f.isEmpty()) {
                out.add(f);
            }
        }
        return out;
    }

    private static String flagsFromJvmProperties() {
        String configured = System.getProperty("elastikey.jvm.properties");
        Path file = configured != null ? Path.of(configured) : findUpwards(Path.of("").toAbsolutePath());
        Properties props = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            props.load(in);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + file, e);
        }
        String flags = props.getProperty("elastikey.jvm.flags");
        if (flags == null) {
            throw new IllegalStateException(file + " has no elastikey.jvm.flags");
        }
        return flags;
    }

    private static Path findUpwards(Path from) {
        for (Path d = from; d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("jvm.properties"))) {
                return d.resolve("jvm.properties");
            }
        }
        throw new IllegalStateException("no jvm.properties above " + from);
    }
}

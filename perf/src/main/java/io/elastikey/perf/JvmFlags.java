// JvmFlags -- the JVM flags every Elastikey JVM needs, as the build filtered them into perf.properties.
package io.elastikey.perf;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

/**
 * Reads {@code elastikey.jvm.flags} from the {@code perf.properties} resource. Maven fills it in
 * from {@code jvm.properties} at the reactor root while building, so a build that skipped filtering
 * (an IDE copying resources as they are) is caught here instead of starting forks without the
 * {@code --add-opens} Chronicle needs.
 */
public final class JvmFlags {

    private static final String RESOURCE = "/perf.properties";
    private static final String KEY = "elastikey.jvm.flags";

    /** How to start a JVM with the flags from a shell at the reactor root. */
    public static final String SHELL_HINT = "java $(sed -n 's/^elastikey\\.jvm\\.flags=//p' jvm.properties) ...";

    private JvmFlags() {
    }

    /** The flags, one per element. */
    public static List<String> fromBuild() {
        Properties p = new Properties();
        try (InputStream in = JvmFlags.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is not on the class path: build perf with ./mvnw");
            }
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
        String flags = p.getProperty(KEY, "").trim();
        if (flags.isEmpty() || flags.contains("${")) {
            throw new IllegalStateException(RESOURCE + " has " + KEY + "=" + flags
                    + ", not the flags of jvm.properties: it was not filtered; build perf with ./mvnw");
        }
        return List.of(flags.split("\\s+"));
    }

    /** The flags this JVM was started without; empty when it has them all. */
    public static List<String> missingFromThisJvm() {
        List<String> have = ManagementFactory.getRuntimeMXBean().getInputArguments();
        List<String> missing = new ArrayList<>(fromBuild());
        missing.removeAll(have);
        return missing;
    }

    /**
     * Whether this JVM has every flag of jvm.properties; when it has not, says which it lacks and how to start it on
     * {@code err}. For the commands that open a store in their own JVM, where a missing flag fails much later and
     * far less clearly.
     */
    public static boolean thisJvmHasThem(PrintStream err) {
        List<String> missing = missingFromThisJvm();
        if (!missing.isEmpty()) {
            err.println("this JVM lacks flags of jvm.properties " + missing + "; start it with " + SHELL_HINT);
        }
        return missing.isEmpty();
    }

    /** Splits a user's {@code --jvm-args} string on whitespace; no quoting. */
    public static List<String> split(String args) {
        String t = args == null ? "" : args.trim();
        return t.isEmpty() ? List.of() : Arrays.asList(t.split("\\s+"));
    }
}

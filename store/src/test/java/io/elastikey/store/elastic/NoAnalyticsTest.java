// NoAnalyticsTest -- proves Chronicle's usage analytics never runs in a JVM that uses the store.
package io.elastikey.store.elastic;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chronicle libraries report usage to a remote service from the chronicle-analytics jar, and
 * remember the installation in a {@code .chronicle.analytics*} file in the user's home. A key
 * server makes no outbound connection, so the build excludes the jar and passes
 * {@code -Dchronicle.analytics.disable=true} to every JVM.
 *
 * <p>The proof runs a child JVM (with a home directory of its own) that uses a store end to end,
 * with {@code -verbose:class}: no analytics class may be loaded and no analytics file written.
 */
class NoAnalyticsTest {

    private static final String ANALYTICS_PACKAGE = "net.openhft.chronicle.analytics.";
    private static final String DISABLE_FLAG = "-Dchronicle.analytics.disable=true";

    @TempDir
    Path tmp;

    @Test
    void theClasspathHasNoChronicleAnalyticsJar() {
        assertThat(System.getProperty("java.class.path")).contains("chronicle-map")
                .doesNotContain("chronicle-analytics");
    }

    @Test
    void theBuildFlagsDisableChronicleAnalytics() {
        assertThat(ChildJvm.buildJvmFlags()).contains(DISABLE_FLAG);
    }

    @Test
    void aJvmUsingTheStoreLoadsNoAnalyticsClassAndWritesNoAnalyticsFile() throws Exception {
        assertNoAnalytics(ChildJvm.buildJvmFlags());
    }

    /** The jar's exclusion alone is enough: even a JVM without the disable flag has nothing to run. */
    @Test
    void withoutTheDisableFlagTheExcludedJarStillKeepsAnalyticsOut() throws Exception {
        List<String> flags = new ArrayList<>(ChildJvm.buildJvmFlags());
        flags.removeIf(f -> f.startsWith("-Dchronicle.analytics"));
        assertNoAnalytics(flags);
    }

    private void assertNoAnalytics(List<String> buildFlags) throws Exception {
        Path home = Files.createDirectories(tmp.resolve("home"));
        List<String> jvmArgs = new ArrayList<>(buildFlags);
        jvmArgs.add("-Duser.home=" + home);
        jvmArgs.add("-verbose:class");
        List<String> cmd = ChildJvm.command(jvmArgs, NoAnalyticsChild.class, tmp.resolve("store").toString());

        ChildJvm.Result r = ChildJvm.run(cmd, tmp.resolve("child-output.txt"), 120);

        assertThat(r.exitCode()).as("child exit code; command %s; output:%n%s", cmd, tail(r.output())).isZero();
        assertThat(r.output()).as("child output").contains("STORE OK");
        List<String> loaded = r.output().lines().filter(l -> l.contains("[class,load]")).toList();
        assertThat(loaded).as("-verbose:class lines: Chronicle Map was loaded")
                .anyMatch(l -> l.contains(" net.openhft.chronicle.map.ChronicleMap "));
        assertThat(loaded).as("analytics classes loaded").noneMatch(l -> l.contains(ANALYTICS_PACKAGE));
        assertThat(filesUnder(home)).as("files in the child's user.home")
                .noneMatch(p -> p.getFileName().toString().startsWith(".chronicle.analytics"));
    }

    private static List<Path> filesUnder(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> !p.equals(dir)).toList();
        }
    }

    private static String tail(String output) {
        return output.length() <= 5000 ? output : "..." + output.substring(output.length() - 5000);
    }
}

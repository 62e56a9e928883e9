// NativeLibraryTest -- libscaleup_jni.so is found by platform, extracted from the jar's resources and loaded.
package io.elastikey.scaleup.jni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NativeLibraryTest {

    private static final int EM_X86_64 = 62;
    private static final int EM_AARCH64 = 183;

    @Test
    void platformNamesFollowTheResourceFolders() {
        assertThat(NativeLibrary.platform("Linux", "amd64")).isEqualTo("linux-x86_64");
        assertThat(NativeLibrary.platform("Linux", "x86_64")).isEqualTo("linux-x86_64");
        assertThat(NativeLibrary.platform("Linux", "aarch64")).isEqualTo("linux-aarch64");
        assertThat(NativeLibrary.platform("Mac OS X", "arm64")).isEqualTo("macosx-aarch64");
    }

    @Test
    void loadsThisPlatformsLibraryFromAnExtractedResource() {
        NativeLibrary.SCALEUP.load();
        assertThat(NativeLibrary.SCALEUP.loadedFrom().getFileName().toString()).startsWith("libscaleup_jni-");
        assertThat(NativeLibrary.SCALEUP.loadedFrom()).as("the extracted copy, deleted once loaded").doesNotExist();
        assertThat(LibScaleUp.strerror(-2)).contains("did not answer in time");
        assertThat(LibScaleUp.strerror(0)).isEqualTo("success");
    }

    @Test
    void anUnknownPlatformNamesItselfAndWhatTheJarHolds() {
        assertThatThrownBy(() -> NativeLibrary.SCALEUP.resourceFor("sunos-sparcv9"))
                .isInstanceOf(UnsatisfiedLinkError.class)
                .hasMessageContaining("sunos-sparcv9")
                .hasMessageContaining(NativeLibrary.SCALEUP.resourcePath(hostPlatform()));
    }

    @Test
    void theResourcesAreElfLibrariesForTheirArchitecture() throws IOException {
        assertThat(elfMachine(NativeLibrary.SCALEUP.resourcePath("linux-x86_64")))
                .isEqualTo(hostPlatform().endsWith("x86_64") ? EM_X86_64 : -1);
        int aarch64 = elfMachine(NativeLibrary.SCALEUP.resourcePath("linux-aarch64"));
        assumeTrue(aarch64 != -1, "no aarch64 library built (no cross compiler)");
        assertThat(aarch64).isEqualTo(EM_AARCH64);
    }

    /** The same classes and resources as a jar, in a fresh class loader: the library loads from inside the jar. */
    @Test
    void loadsFromAJar(@TempDir Path dir) throws Exception {
        Path classes = Path.of(NativeLibrary.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path jar = dir.resolve("scaleup-client.jar");
        writeJar(classes, jar);
        try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()},
                ClassLoader.getPlatformClassLoader())) {
            Class<?> lib = Class.forName(LibScaleUp.class.getName(), true, loader);
            Method strerror = lib.getDeclaredMethod("strerror", int.class);
            strerror.setAccessible(true);
            assertThat(strerror.invoke(null, -1)).isEqualTo("no scale-up agent listening on the socket");
            assertThat(lib.getProtectionDomain().getCodeSource().getLocation().getPath()).endsWith(".jar");
        }
    }

    private static String hostPlatform() {
        return NativeLibrary.platform(System.getProperty("os.name"), System.getProperty("os.arch"));
    }

    private static int elfMachine(String resource) throws IOException {
        try (var in = NativeLibrary.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                return -1;
            }
            byte[] header = in.readNBytes(20);
            assertThat(new String(header, 1, 3, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("ELF");
            return (header[18] & 0xff) | (header[19] & 0xff) << 8;
        }
    }

    private static void writeJar(Path root, Path jar) throws IOException {
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar)); Stream<Path> files = Files.walk(root)) {
            List<Path> regular = files.filter(Files::isRegularFile).toList();
            for (Path f : regular) {
                out.putNextEntry(new JarEntry(root.relativize(f).toString().replace('\\', '/')));
                Files.copy(f, (OutputStream) out);
                out.closeEntry();
            }
        }
    }
}

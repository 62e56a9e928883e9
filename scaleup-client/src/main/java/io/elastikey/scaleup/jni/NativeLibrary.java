// NativeLibrary -- finds libscaleup_jni.so for this platform among the jar's resources and loads it once.
package io.elastikey.scaleup.jni;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Loads the JNI bridge to libscaleup. The jar carries one build per platform at
 * {@code native/<os>-<arch>/libscaleup_jni.so} ({@code linux-x86_64}, {@code linux-aarch64}); the one for this JVM is
 * copied to a temporary file (deleted on exit) and loaded with {@link System#load}, once per class loader.
 *
 * <p>The system property {@value #LIBRARY_PROPERTY} names a library file to load instead, for development.
 */
public final class NativeLibrary {

    /** A path to a {@code libscaleup_jni.so} to load instead of the jar's. */
    public static final String LIBRARY_PROPERTY = "elastikey.scaleup.library";

    static final String LIBRARY_FILE = "libscaleup_jni.so";

    /** The platforms the build produces; only used to say what exists when nothing fits. */
    static final List<String> KNOWN_PLATFORMS = List.of("linux-x86_64", "linux-aarch64");

    private static Path loadedFrom;

    private NativeLibrary() {
    }

    /**
     * Loads the library if this class loader has not yet done so.
     *
     * @throws UnsatisfiedLinkError naming the platform and the platforms the jar holds when none fits, or wrapping
     *     the cause when extracting or loading failed
     */
    public static synchronized void load() {
        if (loadedFrom != null) {
            return;
        }
        String override = System.getProperty(LIBRARY_PROPERTY);
        Path file = override != null && !override.isEmpty() ? Path.of(override).toAbsolutePath()
                : extract(resourceFor(platform(System.getProperty("os.name"), System.getProperty("os.arch"))));
        try {
            System.load(file.toString());
        } catch (UnsatisfiedLinkError e) {
            throw linkError("could not load " + file + ": " + e.getMessage(), e);
        }
        loadedFrom = file;
    }

    /** The file the library was loaded from, or {@code null} before {@link #load()}. */
    static synchronized Path loadedFrom() {
        return loadedFrom;
    }

    /** The platform name of the resource folder: {@code linux-x86_64} for Linux on amd64, and so on. */
    static String platform(String osName, String osArch) {
        String os = osName.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
        String arch = osArch.toLowerCase(Locale.ROOT);
        arch = switch (arch) {
            case "amd64", "x86_64", "x64" -> "x86_64";
            case "aarch64", "arm64" -> "aarch64";
            default -> arch;
        };
        return os + "-" + arch;
    }

    /** The resource path of the library for platform, which must exist. */
    static String resourceFor(String platform) {
        String resource = resourcePath(platform);
        if (NativeLibrary.class.getClassLoader().getResource(resource) == null) {
            throw linkError("no " + LIBRARY_FILE + " for platform " + platform + " (os.name=" + System.getProperty(
                    "os.name") + ", os.arch=" + System.getProperty("os.arch") + "); the class path holds "
                    + availableResources(), null);
        }
        return resource;
    }

    static String resourcePath(String platform) {
        return "native/" + platform + "/" + LIBRARY_FILE;
    }

    /** The known platforms' resources that exist, for error messages. */
    static List<String> availableResources() {
        List<String> found = new ArrayList<>();
        for (String platform : KNOWN_PLATFORMS) {
            if (NativeLibrary.class.getClassLoader().getResource(resourcePath(platform)) != null) {
                found.add(resourcePath(platform));
            }
        }
        return found;
    }

    private static Path extract(String resource) {
        try (InputStream in = NativeLibrary.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw linkError("resource " + resource + " vanished", null);
            }
            Path file = Files.createTempFile("libscaleup_jni-", ".so");
            file.toFile().deleteOnExit();
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            return file;
        } catch (IOException e) {
            throw linkError("could not extract " + resource + " to a temporary file: " + e, e);
        }
    }

    private static UnsatisfiedLinkError linkError(String message, Throwable cause) {
        UnsatisfiedLinkError error = new UnsatisfiedLinkError("libscaleup: " + message);
        if (cause != null) {
            error.initCause(cause);
        }
        return error;
    }
}

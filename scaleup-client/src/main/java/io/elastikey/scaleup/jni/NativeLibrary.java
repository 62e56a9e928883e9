// NativeLibrary -- finds a JNI library for this platform among the jar's resources and loads it once.
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
 * Loads one of the project's JNI libraries: {@link #SCALEUP}, the bridge to libscaleup, or the key server's P-256
 * signer. A jar carries one build per platform at {@code native/<os>-<arch>/<file>} ({@code linux-x86_64},
 * {@code linux-aarch64}); the one for this JVM is copied to a temporary file, loaded with {@link System#load} (once
 * per instance and class loader), and the file deleted.
 *
 * <p>A system property names a library file to load instead, for development.
 */
public final class NativeLibrary {

    /** The JNI bridge to libscaleup. */
    public static final NativeLibrary SCALEUP = new NativeLibrary("libscaleup", "libscaleup_jni.so",
            "elastikey.scaleup.library");

    /** The platforms the builds produce; only used to say what exists when nothing fits. */
    static final List<String> KNOWN_PLATFORMS = List.of("linux-x86_64", "linux-aarch64");

    private final String name;
    private final String file;
    private final String overrideProperty;
    private Path loadedFrom;

    /**
     * @param name             what error messages call the library
     * @param file             the file name under {@code native/<os>-<arch>/}
     * @param overrideProperty the system property that may name a file to load instead
     */
    public NativeLibrary(String name, String file, String overrideProperty) {
        this.name = name;
        this.file = file;
        this.overrideProperty = overrideProperty;
    }

    /**
     * Loads the library if this instance has not yet done so.
     *
     * @throws UnsatisfiedLinkError naming the platform and the platforms the jar holds when none fits, or wrapping
     *     the cause when extracting or loading failed
     */
    public synchronized void load() {
        if (loadedFrom != null) {
            return;
        }
        String override = System.getProperty(overrideProperty);
        boolean extracted = override == null || override.isEmpty();
        Path path = extracted
                ? extract(resourceFor(platform(System.getProperty("os.name"), System.getProperty("os.arch"))))
                : Path.of(override).toAbsolutePath();
        try {
            System.load(path.toString());
        } catch (UnsatisfiedLinkError e) {
            throw linkError("could not load " + path + ": " + e.getMessage(), e);
        } finally {
            if (extracted) {
                deleteExtracted(path);
            }
        }
        loadedFrom = path;
    }

    /**
     * Once loaded the library stays mapped, so its extracted copy is deleted now: left for deletion at exit, a copy
     * stayed in the temporary directory after every JVM that was killed, and crash tests kill many.
     */
    private static void deleteExtracted(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            path.toFile().deleteOnExit();
        }
    }

    /** The file the library was loaded from (an extracted copy is deleted by then); null before {@link #load()}. */
    public synchronized Path loadedFrom() {
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
    String resourceFor(String platform) {
        String resource = resourcePath(platform);
        if (NativeLibrary.class.getClassLoader().getResource(resource) == null) {
            throw linkError("no " + file + " for platform " + platform + " (os.name=" + System.getProperty(
                    "os.name") + ", os.arch=" + System.getProperty("os.arch") + "); the class path holds "
                    + availableResources(), null);
        }
        return resource;
    }

    String resourcePath(String platform) {
        return "native/" + platform + "/" + file;
    }

    /** The known platforms' resources that exist, for error messages. */
    List<String> availableResources() {
        List<String> found = new ArrayList<>();
        for (String platform : KNOWN_PLATFORMS) {
            if (NativeLibrary.class.getClassLoader().getResource(resourcePath(platform)) != null) {
                found.add(resourcePath(platform));
            }
        }
        return found;
    }

    private Path extract(String resource) {
        Path extracted = null;
        try (InputStream in = NativeLibrary.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw linkError("resource " + resource + " vanished", null);
            }
            extracted = Files.createTempFile(file.replace(".so", "-"), ".so");
            Files.copy(in, extracted, StandardCopyOption.REPLACE_EXISTING);
            return extracted;
        } catch (IOException e) {
            if (extracted != null) {
                deleteExtracted(extracted); // a full temporary directory leaves a partial copy
            }
            throw linkError("could not extract " + resource + " to a temporary file: " + e, e);
        }
    }

    private UnsatisfiedLinkError linkError(String message, Throwable cause) {
        UnsatisfiedLinkError error = new UnsatisfiedLinkError(name + ": " + message);
        if (cause != null) {
            error.initCause(cause);
        }
        return error;
    }
}

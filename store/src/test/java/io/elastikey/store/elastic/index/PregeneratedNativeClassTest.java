// PregeneratedNativeClassTest -- the Chronicle header class compiled with the store is the one Chronicle would generate.
package io.elastikey.store.elastic.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;

import net.openhft.chronicle.hash.VanillaGlobalMutableState;
import net.openhft.chronicle.values.Values;
import org.junit.jupiter.api.Test;

/**
 * {@code net.openhft.chronicle.hash.VanillaGlobalMutableState$$Native} lives in the store's sources so that opening a
 * Chronicle Map does not run javac (1.5 s a JVM). It must stay exactly what Chronicle Values generates for the
 * libraries on the classpath, or a Chronicle upgrade would map a header whose layout the library no longer expects.
 */
class PregeneratedNativeClassTest {
    private static final Path SOURCE =
            Path.of("src/main/java/net/openhft/chronicle/hash/VanillaGlobalMutableState$$Native.java");

    @Test
    void chronicleLoadsTheCompiledClassInsteadOfGeneratingOne() {
        Class<?> loaded = Values.nativeClassFor(VanillaGlobalMutableState.class);

        assertThat(loaded.getName()).isEqualTo("net.openhft.chronicle.hash.VanillaGlobalMutableState$$Native");
        assertThat(loaded.getProtectionDomain().getCodeSource().getLocation().getPath())
                .as("loaded from the store's own classes, not compiled at run time").contains("store/target/classes");
    }

    @Test
    void theCheckedInSourceIsWhatTheGeneratorWritesToday() throws Exception {
        Class<?> modelType = Class.forName("net.openhft.chronicle.values.ValueModel");
        Object model = modelType.getMethod("acquire", Class.class).invoke(null, VanillaGlobalMutableState.class);
        Method generator = Class.forName("net.openhft.chronicle.values.Generators")
                .getDeclaredMethod("generateNativeClass", modelType, String.class);
        generator.setAccessible(true);
        String generated = (String) generator.invoke(null, model, "VanillaGlobalMutableState$$Native");

        String checkedIn = Files.readAllLines(SOURCE, StandardCharsets.UTF_8).stream()
                .filter(line -> !line.startsWith("//"))
                .collect(Collectors.joining("\n", "", "\n"));
        assertThat(checkedIn).as("regenerate %s: Chronicle's generator now writes%n%s", SOURCE, generated)
                .isEqualTo(generated);
    }
}

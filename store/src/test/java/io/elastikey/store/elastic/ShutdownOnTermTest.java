// ShutdownOnTermTest -- a SIGTERM lets the store close itself: nothing else closes its index first.
package io.elastikey.store.elastic;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chronicle Map registers a JVM shutdown hook that closes every open map, and the JVM runs shutdown hooks at once:
 * on a SIGTERM it closed the index while the store's own hook was still closing the store (a memory-tier fill then
 * failed on a closed map, and the store's last checkpoint could too). The index now skips that hook; the store
 * closes it, last.
 */
class ShutdownOnTermTest {

    @TempDir
    Path dir;

    @Test
    void theStoresOwnShutdownHookFindsItsIndexOpenAndClosesItCleanly() throws Exception {
        Process child = new ProcessBuilder(ChildJvm.command(ChildJvm.buildJvmFlags(), TermChild.class, dir.toString()))
                .redirectErrorStream(true).start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(
                new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null && !line.equals("READY")) {
                lines.add(line);
            }
            assertThat(line).as("child output: %s", lines).isEqualTo("READY");
            child.toHandle().destroy(); // SIGTERM (Process.destroy would also close the streams read here)
            while ((line = out.readLine()) != null) {
                lines.add(line);
            }
        } finally {
            assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
            child.destroyForcibly();
        }
        assertThat(lines).contains("CLOSED v1").noneMatch(l -> l.startsWith("FAILED"));
        try (ElasticStore store = ElasticStore.open(ElasticStoreConfig.builder(dir).memoryBudgetBytes(0)
                .indexCapacity(10_000).build())) {
            assertThat(store.get(TermChild.key())).isEqualTo("v1".getBytes(StandardCharsets.UTF_8));
        }
    }
}

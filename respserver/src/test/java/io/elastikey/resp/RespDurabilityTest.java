package io.elastikey.resp;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.store.elastic.ChildJvm;
import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.elastic.ElasticStoreConfig;
import io.elastikey.store.elastic.FsyncPolicy;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * A SET answered +OK survives a SIGKILL of the server's JVM: the child serves an ElasticStore,
 * this test pipelines SETs and counts the acknowledgements, kills the child while SETs are still
 * in flight, reopens the store and finds every acknowledged key with its value.
 */
class RespDurabilityTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(value = FsyncPolicy.class, names = {"ALWAYS", "GROUP", "EVERYSEC"})
    void acknowledgedSetsSurviveSigkill(FsyncPolicy fsync) throws Exception {
        Process child = new ProcessBuilder(ChildJvm.command(ChildJvm.buildJvmFlags(), RespServerChild.class,
                dir.toString(), fsync.name())).redirectErrorStream(true).start();
        int acknowledged = 0;
        try {
            int port = awaitPort(child);
            try (RawClient c = new RawClient(new InetSocketAddress("127.0.0.1", port))) {
                int sent = 0;
                while (acknowledged < 3000) {
                    ByteArrayOutputStream burst = new ByteArrayOutputStream();
                    for (int i = 0; i < 50; i++, sent++) {
                        burst.writeBytes(RawClient.encode("SET", "d:" + sent, "value-" + sent));
                    }
                    c.send(burst.toByteArray());
                    for (int i = 0; i < 50; i++) {
                        assertThat(c.read()).isEqualTo("OK");
                        acknowledged++;
                    }
                }
                // More SETs in flight, unanswered, as the process dies.
                ByteArrayOutputStream tail = new ByteArrayOutputStream();
                for (int i = 0; i < 200; i++) {
                    tail.writeBytes(RawClient.encode("SET", "d:" + (sent + i), "value-" + (sent + i)));
                }
                c.send(tail.toByteArray());
                child.destroyForcibly(); // SIGKILL
                assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
            }
        } finally {
            child.destroyForcibly();
        }
        try (ElasticStore store = ElasticStore.open(ElasticStoreConfig.builder(dir).indexCapacity(64 * 1024)
                .segmentSizeBytes(8 << 20).build())) {
            for (int i = 0; i < acknowledged; i++) {
                byte[] v = store.get(("d:" + i).getBytes(StandardCharsets.UTF_8));
                assertThat(v).as("acknowledged key d:%d", i).isNotNull();
                assertThat(new String(v, StandardCharsets.UTF_8)).isEqualTo("value-" + i);
            }
        }
    }

    private static int awaitPort(Process child) throws Exception {
        BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        String line;
        while ((line = out.readLine()) != null) {
            if (line.startsWith("PORT ")) {
                Thread drain = new Thread(() -> {
                    try {
                        out.transferTo(java.io.Writer.nullWriter());
                    } catch (java.io.IOException ignored) {
                        // the child died
                    }
                });
                drain.setDaemon(true);
                drain.start();
                return Integer.parseInt(line.substring(5).trim());
            }
            seen.append(line).append('\n');
        }
        throw new AssertionError("child exited before listening:\n" + seen);
    }
}

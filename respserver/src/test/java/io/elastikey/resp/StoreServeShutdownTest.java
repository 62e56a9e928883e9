package io.elastikey.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.store.elastic.ChildJvm;
import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.elastic.ElasticStoreConfig;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code SHUTDOWN} against a real {@code elastikey store serve} process, as redis-cli sends it: the connection closes
 * unanswered, the process exits 0 through the same close as SIGTERM, and the store opens again with every key.
 */
class StoreServeShutdownTest {
    @TempDir
    Path dir;

    @Test
    void shutdownFromLoopbackClosesTheServerThenTheStoreAndExitsZero() throws Exception {
        Path data = dir.resolve("data");
        Process child = new ProcessBuilder(ChildJvm.command(ChildJvm.buildJvmFlags(), StoreServeChild.class, "serve",
                "--data", data.toString(), "--resp", "127.0.0.1:0", "--workers", "4", "--memory", "64m"))
                .redirectErrorStream(true).start();
        List<String> output = new ArrayList<>();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8));
            int port = awaitPort(out, output);
            try (RawClient c = new RawClient(new InetSocketAddress("127.0.0.1", port))) {
                ByteArrayOutputStream burst = new ByteArrayOutputStream();
                for (int i = 0; i < 500; i++) {
                    burst.writeBytes(RawClient.encode("SET", "s:" + i, "value-" + i));
                }
                c.send(burst.toByteArray());
                for (int i = 0; i < 500; i++) {
                    assertThat(c.read()).isEqualTo("OK");
                }
                assertThat(c.call("MSET", "m:1", "one", "m:2", "two")).isEqualTo("OK");

                c.send(RawClient.encode("SHUTDOWN", "NOSAVE"));
                assertThatThrownBy(c::read).as("Redis answers a SHUTDOWN that starts by closing")
                        .isInstanceOf(EOFException.class);
            }
            assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("the process ends").isTrue();
            String line;
            while ((line = out.readLine()) != null) {
                output.add(line);
            }
            assertThat(child.exitValue()).as(String.join("\n", output)).isZero();
            assertThat(output).anyMatch(l -> l.contains("SHUTDOWN from connection")
                    && l.contains("closing the server, then the store"));
        } finally {
            child.destroyForcibly();
        }
        try (ElasticStore store = ElasticStore.open(ElasticStoreConfig.builder(data).build())) {
            assertThat(store.size()).isEqualTo(502);
            assertThat(new String(store.get("s:499".getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8))
                    .isEqualTo("value-499");
            assertThat(new String(store.get("m:2".getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8))
                    .isEqualTo("two");
        }
    }

    private static int awaitPort(BufferedReader out, List<String> seen) throws Exception {
        Pattern ready = Pattern.compile("ready on [^:]+:(\\d+)");
        String line;
        while ((line = out.readLine()) != null) {
            seen.add(line);
            Matcher m = ready.matcher(line);
            if (m.find()) {
                return Integer.parseInt(m.group(1));
            }
        }
        throw new AssertionError("store serve ended before it was ready:\n" + String.join("\n", seen));
    }
}

// StoreServeInCgroupTest -- `store serve` with no --memory in a 256 MiB cgroup v1 limit serves 300 MB without an OOM kill.
package io.elastikey.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.elastikey.store.elastic.ChildJvm;
import io.elastikey.store.elastic.DirectIoProbe;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store started inside a memory cgroup with no budget sizes itself under the limit: a child JVM runs
 * {@code store serve} in a fresh cgroup v1 limited to 256 MiB (its heap, the tier, the JVM and the page cache of its
 * log all charged to it), takes 300 MB of 4 KiB values and serves every one back, and the kernel never OOM-kills in
 * that cgroup; lookups that miss memory read past the page cache ({@code --direct-reads auto}). With the old fixed
 * 1 GiB default the same run is killed part way (perf/bin/store-in-cgroup shows it at 512 MiB and 1.6 GB). Needs
 * root and the v1 memory controller; skipped otherwise.
 */
class StoreServeInCgroupTest {
    private static final Path MEMORY = Path.of("/sys/fs/cgroup/memory");
    private static final long LIMIT = 256L << 20;
    private static final int VALUES = 75_000; // 300 MB of 4 KiB values
    private static final int BATCH = 64;

    @TempDir
    Path dir;

    @Test
    void servesEveryValueUnderTheLimitWithoutAnOomKill() throws Exception {
        assumeTrue(Files.isWritable(MEMORY) && Files.exists(MEMORY.resolve("memory.limit_in_bytes")),
                "cgroup v1 memory controller not writable at " + MEMORY + " (needs root): skipped");
        Path cgroup = MEMORY.resolve("elastikey-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        Files.createDirectory(cgroup);
        Process child = null;
        try {
            Files.writeString(cgroup.resolve("memory.limit_in_bytes"), Long.toString(LIMIT));
            List<String> java = ChildJvm.command(ChildJvm.buildJvmFlags(), StoreServeChild.class, "serve",
                    "--data", dir.resolve("data").toString(), "--resp", "127.0.0.1:0", "--workers", "8");
            String quoted = java.stream().map(a -> "'" + a.replace("'", "'\\''") + "'").collect(Collectors.joining(" "));
            child = new ProcessBuilder("sh", "-c", "echo $$ > " + cgroup.resolve("cgroup.procs") + " && exec " + quoted)
                    .redirectErrorStream(true).start();
            String ready = awaitReady(child);
            assertThat(ready).contains("to fit the 256 MiB limit");
            assertThat(ready).as("under a cgroup limit a miss reads past the page cache, where the file system can")
                    .contains(DirectIoProbe.allowed(dir) ? "reads past the page cache"
                            : "reads through the page cache");
            Matcher port = Pattern.compile("ready on [^:]+:(\\d+)").matcher(ready);
            assertThat(port.find()).as(ready).isTrue();

            try (RawClient c = new RawClient(new InetSocketAddress("127.0.0.1", Integer.parseInt(port.group(1))))) {
                for (int start = 0; start < VALUES; start += BATCH) {
                    ByteArrayOutputStream burst = new ByteArrayOutputStream();
                    int end = Math.min(VALUES, start + BATCH);
                    for (int i = start; i < end; i++) {
                        burst.writeBytes(RawClient.encode("SET", "k:" + i, value(i)));
                    }
                    c.send(burst.toByteArray());
                    for (int i = start; i < end; i++) {
                        assertThat(c.read()).isEqualTo("OK");
                    }
                }
                int wrong = 0;
                for (int start = 0; start < VALUES; start += BATCH) {
                    ByteArrayOutputStream burst = new ByteArrayOutputStream();
                    int end = Math.min(VALUES, start + BATCH);
                    for (int i = start; i < end; i++) {
                        burst.writeBytes(RawClient.encode("GET", "k:" + i));
                    }
                    c.send(burst.toByteArray());
                    for (int i = start; i < end; i++) {
                        Object v = c.read();
                        if (!(v instanceof byte[] b) || !Arrays.equals(b, value(i))) {
                            wrong++;
                        }
                    }
                }
                assertThat(wrong).as("values missing or wrong").isZero();
            }
            assertThat(child.isAlive()).isTrue();
            assertThat(Files.readString(cgroup.resolve("memory.oom_control"))).contains("oom_kill 0");
            assertThat(Long.parseLong(Files.readString(cgroup.resolve("memory.max_usage_in_bytes")).trim()))
                    .isLessThanOrEqualTo(LIMIT);
        } finally {
            if (child != null) {
                child.destroyForcibly();
                child.waitFor(30, TimeUnit.SECONDS);
            }
            removeCgroup(cgroup);
        }
    }

    /** 4 KiB, different for every key. */
    private static byte[] value(int i) {
        byte[] v = new byte[4096];
        byte[] tag = String.format("%012d", i).getBytes(StandardCharsets.US_ASCII);
        for (int p = 0; p < v.length; p++) {
            v[p] = tag[p % tag.length];
        }
        return v;
    }

    /** The "ready on" line; the rest of the output is drained in the background so the child never blocks. */
    private static String awaitReady(Process child) throws IOException {
        BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        List<String> seen = new ArrayList<>();
        String line;
        while ((line = out.readLine()) != null) {
            if (line.contains("ready on")) {
                Thread drain = new Thread(() -> {
                    try {
                        out.transferTo(java.io.Writer.nullWriter());
                    } catch (IOException ignored) {
                        // the child is gone
                    }
                }, "child-drain");
                drain.setDaemon(true);
                drain.start();
                return line;
            }
            seen.add(line);
        }
        throw new AssertionError("store serve ended before it was ready:\n" + String.join("\n", seen));
    }

    /** rmdir, retried while the killed child's pages are still being uncharged. */
    private static void removeCgroup(Path cgroup) throws InterruptedException {
        for (int i = 0; i < 100 && Files.exists(cgroup); i++) {
            try {
                Files.delete(cgroup);
            } catch (IOException e) {
                Thread.sleep(100);
            }
        }
    }
}

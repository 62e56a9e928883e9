// ClientCgroupKernelTest -- the per-client cgroup actuator on the real cgroup v1 memory controller: limits read back, a process over its limit killed.
package io.elastikey.scaleup.agent.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Against the kernel: a parent cgroup made for the test under {@code /sys/fs/cgroup/memory}, throwaway python3
 * processes as clients. A grant changes {@code memory.limit_in_bytes} as read back from the kernel, the process is
 * moved in ({@code /proc/PID/cgroup} says so), and a process that then allocates past its limit is OOM-killed in its
 * cgroup while one whose grant covers the same allocation lives; releasing that grant while the memory is still held
 * is refused by the kernel (EBUSY), so the limit stays until the client gives back. Needs root and cgroup v1; skipped otherwise. Every
 * cgroup made here is removed after the test.
 */
class ClientCgroupKernelTest {
    private static final long MIB = 1024 * 1024;
    private static final Path MEMORY = Path.of("/sys/fs/cgroup/memory");
    /** Waits for a line, allocates (and touches) 100 MiB, says so, waits for another line. */
    private static final String ALLOCATOR = "import sys\nsys.stdin.readline()\nx = b'\\1' * (100 << 20)\n"
            + "print('allocated', flush=True)\nsys.stdin.readline()\n";

    private final List<Process> processes = new ArrayList<>();
    private Path parent;

    @AfterEach
    void cleanUp() throws Exception {
        for (Process p : processes) {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
        if (parent != null && Files.isDirectory(parent)) {
            try (var children = Files.list(parent)) {
                for (Path c : children.filter(Files::isDirectory).toList()) {
                    rmdir(c);
                }
            }
            rmdir(parent);
        }
    }

    @Test
    void grantsSetTheKernelLimitAndAProcessOverItIsKilled() throws Exception {
        assumeTrue(Files.isWritable(MEMORY) && Files.exists(MEMORY.resolve("memory.limit_in_bytes")),
                "cgroup v1 memory controller not writable at " + MEMORY + " (needs root): skipped");
        parent = MEMORY.resolve("elastikey-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        Files.createDirectory(parent);
        ClientCgroupActuator actuator = ClientCgroupActuator.open(parent, 32);
        assertThat(actuator.version()).isEqualTo(ClientCgroupActuator.Version.V1);

        Process small = allocator();
        int pid = (int) small.pid();
        Actuation grant = actuator.apply("store-a", 64, pid);
        assertThat(grant.applied()).as(grant.note()).isTrue();
        Path a = parent.resolve("store-a");
        assertThat(limit(a)).isEqualTo(96 * MIB);
        assertThat(Files.readString(Path.of("/proc/" + pid + "/cgroup"))).contains(":memory:/" + parent.getFileName()
                + "/store-a\n");

        Actuation release = actuator.apply("store-a", 0, pid);
        assertThat(release.applied()).as(release.note()).isTrue();
        assertThat(limit(a)).isEqualTo(32 * MIB);

        // 100 MiB in a 32 MiB cgroup with no swap: the kernel kills the process in the cgroup
        go(small);
        assertThat(small.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(small.exitValue()).isEqualTo(128 + 9); // SIGKILL
        assertThat(Files.readString(a.resolve("memory.oom_control"))).contains("oom_kill 1");
        assertThat(Long.parseLong(Files.readString(a.resolve("memory.failcnt")).trim())).isPositive();

        // the same allocation under a grant that covers it lives
        Process granted = allocator();
        Actuation big = actuator.apply("store-b", 128, (int) granted.pid());
        assertThat(big.applied()).as(big.note()).isTrue();
        assertThat(limit(parent.resolve("store-b"))).isEqualTo(160 * MIB);
        go(granted);
        BufferedReader out = new BufferedReader(new InputStreamReader(granted.getInputStream(), StandardCharsets.UTF_8));
        assertThat(out.readLine()).isEqualTo("allocated");
        assertThat(granted.isAlive()).isTrue();
        assertThat(Files.readString(parent.resolve("store-b/memory.oom_control"))).contains("oom_kill 0");

        // a release below what the client holds: the kernel cannot reclaim anonymous memory without swap and refuses
        Actuation tooLow = actuator.apply("store-b", 0, (int) granted.pid());
        assertThat(tooLow.applied()).isFalse();
        assertThat(tooLow.note()).contains("give memory back first");
        assertThat(limit(parent.resolve("store-b"))).isEqualTo(160 * MIB);
        assertThat(granted.isAlive()).isTrue();
    }

    private Process allocator() throws IOException {
        Process p = new ProcessBuilder("python3", "-c", ALLOCATOR).redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        processes.add(p);
        return p;
    }

    private static void go(Process p) throws IOException {
        OutputStream in = p.getOutputStream();
        in.write('\n');
        in.flush();
    }

    private static long limit(Path cgroup) throws IOException {
        return Long.parseLong(Files.readString(cgroup.resolve("memory.limit_in_bytes")).trim());
    }

    /** rmdir, retried while a killed process's pages are still being uncharged. */
    private static void rmdir(Path cgroup) throws InterruptedException {
        for (int i = 0; i < 100 && Files.exists(cgroup); i++) {
            try {
                Files.delete(cgroup);
            } catch (IOException e) {
                Thread.sleep(100);
            }
        }
    }
}

package io.elastikey.scaleup.agent.actuate;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The cgroup actuator against a fake {@code /sys/fs/cgroup} and {@code /proc}. */
class CgroupActuatorTest {
    private static final long MIB = 1024 * 1024;

    @TempDir
    Path dir;
    Path cgroup;
    Path proc;
    CgroupActuator actuator;

    @BeforeEach
    void tree() throws Exception {
        cgroup = Files.createDirectories(dir.resolve("cgroup"));
        proc = Files.createDirectories(dir.resolve("proc"));
        actuator = new CgroupActuator(cgroup, proc, 512);
    }

    private void process(int pid, String cgroupFile) throws Exception {
        Files.createDirectories(proc.resolve(Integer.toString(pid)));
        Files.writeString(proc.resolve(pid + "/cgroup"), cgroupFile);
    }

    private Path limit(String relative, String initial) throws Exception {
        return limit(relative, initial, "");
    }

    /** A limit file, and {@code cgroup.procs} beside it listing {@code procs}. */
    private Path limit(String relative, String initial, String procs) throws Exception {
        Path file = cgroup.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.writeString(file, initial);
        Files.writeString(file.resolveSibling("cgroup.procs"), procs);
        return file;
    }

    @Test
    void v2WritesMemoryMaxOfTheProcesssCgroup() throws Exception {
        process(123, "0::/system.slice/keyserver.service\n");
        Path max = limit("system.slice/keyserver.service/memory.max", "max\n", "123\n");
        Actuation a = actuator.apply("keyserver", 1024, 123);
        assertThat(a.applied()).isTrue();
        assertThat(a.note()).contains("1536 MiB").contains(max.toString());
        assertThat(Files.readString(max)).isEqualTo(Long.toString(1536 * MIB));
        assertThat(actuator.apply("keyserver", 0, 123).applied()).isTrue();
        assertThat(Files.readString(max)).isEqualTo(Long.toString(512 * MIB));
    }

    @Test
    void v1WritesLimitInBytesOfTheMemoryHierarchy() throws Exception {
        process(77, "12:pids:/docker/abc\n5:cpu,cpuacct:/docker/abc\n4:memory:/docker/abc\n0::/docker/abc\n");
        Path v1 = limit("memory/docker/abc/memory.limit_in_bytes", "9223372036854771712\n", "77\n");
        Path v2 = limit("docker/abc/memory.max", "max\n");
        assertThat(actuator.apply("edge", 100, 77).applied()).isTrue();
        assertThat(Files.readString(v1)).isEqualTo(Long.toString(612 * MIB));
        assertThat(Files.readString(v2)).isEqualTo("max\n"); // hybrid host: v1 memory wins
    }

    @Test
    void aCgroupSharedWithOtherProcessesIsNotTouched() throws Exception {
        process(42, "0::/user.slice/session-1.scope\n");
        Path max = limit("user.slice/session-1.scope/memory.max", "max\n", "40\n42\n43\n");
        Actuation a = actuator.apply("x", 10, 42);
        assertThat(a.applied()).isFalse();
        assertThat(a.note()).contains("not applied").contains("also holds 2 other process(es)");
        assertThat(Files.readString(max)).isEqualTo("max\n");
        Files.delete(max.resolveSibling("cgroup.procs"));
        assertThat(actuator.apply("x", 10, 42).note()).contains("cannot list the processes");
    }

    @Test
    void theRootCgroupIsNotApplied() throws Exception {
        process(1, "0::/\n");
        Actuation a = actuator.apply("x", 10, 1);
        assertThat(a.applied()).isFalse();
        assertThat(a.note()).contains("not applied").contains("root memory cgroup");
        process(2, "4:memory:/\n");
        assertThat(actuator.apply("x", 10, 2).note()).contains("root memory cgroup");
    }

    @Test
    void aMissingFileOrProcessOrUnknownPidIsNotAppliedAndSaysWhy() throws Exception {
        process(5, "0::/gone\n");
        assertThat(actuator.apply("x", 10, 5).note()).contains("not applied").contains("does not exist");
        assertThat(actuator.apply("x", 10, 6).note()).contains("not applied").contains("cannot read the cgroup");
        assertThat(actuator.apply("x", 10, -1).note()).contains("not applied").contains("PID is unknown");
        process(7, "0::/../escape\n");
        assertThat(actuator.apply("x", 10, 7).applied()).isFalse();
    }

    @Test
    void anUnwritableLimitIsNotAppliedAndSaysWhy() throws Exception {
        process(8, "0::/ro\n");
        Files.createDirectories(cgroup.resolve("ro/memory.max")); // a directory: no user can write it as a file
        Files.writeString(cgroup.resolve("ro/cgroup.procs"), "8\n");
        Actuation a = actuator.apply("x", 10, 8);
        assertThat(a.applied()).isFalse();
        assertThat(a.note()).contains("not applied").contains("memory.max");
    }
}

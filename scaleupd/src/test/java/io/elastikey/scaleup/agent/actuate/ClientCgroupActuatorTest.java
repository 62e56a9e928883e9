// ClientCgroupActuatorTest -- the per-client cgroup actuator against fake v1 and v2 trees (v2's memory controller is not on this machine).
package io.elastikey.scaleup.agent.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file writes of {@link ClientCgroupActuator}: a fake cgroup directory does not grow control files when made,
 * so each test lays out the client's cgroup as the kernel would. The real kernel is in ClientCgroupKernelTest (v1).
 */
class ClientCgroupActuatorTest {
    private static final long MIB = 1024 * 1024;

    @TempDir
    Path dir;

    private Path v1Parent() throws IOException {
        Path parent = Files.createDirectories(dir.resolve("memory/elastikey"));
        Files.writeString(parent.resolve("memory.limit_in_bytes"), "9223372036854771712\n");
        return parent;
    }

    private Path v2Parent(String subtree) throws IOException {
        Path parent = Files.createDirectories(dir.resolve("elastikey.slice"));
        Files.writeString(parent.resolve("cgroup.controllers"), "cpu io memory pids\n");
        Files.writeString(parent.resolve("cgroup.subtree_control"), subtree);
        return parent;
    }

    private static Path child(Path parent, String name, String... files) throws IOException {
        Path c = Files.createDirectories(parent.resolve(name));
        for (String f : files) {
            Files.writeString(c.resolve(f), "");
        }
        return c;
    }

    @Test
    void v1SetsLimitInBytesOnEveryGrantAndMovesTheProcessIn() throws Exception {
        Path parent = v1Parent();
        Path c = child(parent, "store-a", "memory.limit_in_bytes", "cgroup.procs");
        ClientCgroupActuator a = ClientCgroupActuator.open(parent, 256);
        assertThat(a.version()).isEqualTo(ClientCgroupActuator.Version.V1);
        assertThat(a.describe()).contains("v1").contains(parent.toString());

        Actuation grant = a.apply("store-a", 1024, 4242);
        assertThat(grant.applied()).isTrue();
        assertThat(grant.note()).contains("1280 MiB").contains("process 4242 moved");
        assertThat(Files.readString(c.resolve("memory.limit_in_bytes"))).isEqualTo(Long.toString(1280 * MIB));
        assertThat(Files.readString(c.resolve("cgroup.procs"))).isEqualTo("4242");

        Actuation release = a.apply("store-a", 0, 4242);
        assertThat(release.applied()).isTrue();
        assertThat(release.note()).doesNotContain("moved"); // already in (the fake lists it)
        assertThat(Files.readString(c.resolve("memory.limit_in_bytes"))).isEqualTo(Long.toString(256 * MIB));
    }

    @Test
    void v2SetsMaxAndHighAndEnablesTheMemoryControllerForChildren() throws Exception {
        Path parent = v2Parent("cpu\n");
        Path c = child(parent, "keyserver", "memory.max", "memory.high", "cgroup.procs");
        ClientCgroupActuator a = ClientCgroupActuator.open(parent, 512);
        assertThat(a.version()).isEqualTo(ClientCgroupActuator.Version.V2);
        assertThat(Files.readString(parent.resolve("cgroup.subtree_control"))).isEqualTo("+memory");

        assertThat(a.apply("keyserver", 512, 77).applied()).isTrue();
        assertThat(Files.readString(c.resolve("memory.max"))).isEqualTo(Long.toString(1024 * MIB));
        assertThat(Files.readString(c.resolve("memory.high"))).isEqualTo(Long.toString(960 * MIB));
        assertThat(Files.readString(c.resolve("cgroup.procs"))).isEqualTo("77");
    }

    @Test
    void v2LeavesAnEnabledMemoryControllerAlone() throws Exception {
        Path parent = v2Parent("cpu memory\n");
        ClientCgroupActuator.open(parent, 512);
        assertThat(Files.readString(parent.resolve("cgroup.subtree_control"))).isEqualTo("cpu memory\n");
    }

    @Test
    void aParentThatIsNoMemoryCgroupIsRefusedAtStart() throws Exception {
        assertThatThrownBy(() -> ClientCgroupActuator.open(dir.resolve("missing"), 512))
                .isInstanceOf(IOException.class).hasMessageContaining("not a directory");
        assertThatThrownBy(() -> ClientCgroupActuator.open(Files.createDirectories(dir.resolve("plain")), 512))
                .isInstanceOf(IOException.class).hasMessageContaining("not a memory cgroup");
        Path noMemory = Files.createDirectories(dir.resolve("unified"));
        Files.writeString(noMemory.resolve("cgroup.controllers"), "hugetlb\n");
        assertThatThrownBy(() -> ClientCgroupActuator.open(noMemory, 512))
                .isInstanceOf(IOException.class).hasMessageContaining("memory controller is not available");
    }

    @Test
    void clientNamesBecomeOneSafeDirectory() throws Exception {
        ClientCgroupActuator a = ClientCgroupActuator.open(v1Parent(), 0);
        Path parent = dir.resolve("memory/elastikey");
        assertThat(a.cgroupOf("key server/1")).isEqualTo(parent.resolve("key_server_1"));
        assertThat(a.cgroupOf("..")).isEqualTo(parent.resolve("_."));
        assertThat(a.cgroupOf("store.a-1_b")).isEqualTo(parent.resolve("store.a-1_b"));
    }

    @Test
    void anUnknownPidOrAFailedWriteIsNotAppliedAndSaysWhy() throws Exception {
        Path parent = v1Parent();
        child(parent, "a", "memory.limit_in_bytes", "cgroup.procs");
        ClientCgroupActuator act = ClientCgroupActuator.open(parent, 64);
        Actuation unknown = act.apply("a", 10, -1);
        assertThat(unknown.applied()).isFalse();
        assertThat(unknown.note()).contains("74 MiB written").contains("PID is unknown");

        Files.createDirectories(parent.resolve("b")); // no limit file: the write fails
        Actuation failed = act.apply("b", 10, 5);
        assertThat(failed.applied()).isFalse();
        assertThat(failed.note()).contains("cgroup limit not applied").contains("give memory back first");
    }
}

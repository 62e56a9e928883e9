// CgroupLimitTest -- the limit read from fake /proc/self/cgroup and /sys/fs/cgroup trees: v1, v2, hybrid, containers.
package io.elastikey.store.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CgroupLimitTest {

    private static final long MIB = 1L << 20;

    @TempDir
    Path dir;

    private Path proc(String text) throws IOException {
        Path p = dir.resolve("proc-self-cgroup");
        Files.writeString(p, text);
        return p;
    }

    private Path sys() {
        return dir.resolve("sys-fs-cgroup");
    }

    private void file(String path, String text) throws IOException {
        Path p = sys().resolve(path);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text + "\n");
    }

    @Test
    void v1ReadsTheMemoryLinesCgroup() throws IOException {
        file("memory/memory.limit_in_bytes", "9223372036854771712");
        file("memory/jobs/a/memory.limit_in_bytes", Long.toString(512 * MIB));
        CgroupLimit l = new CgroupLimit(proc("5:devices:/\n4:memory:/jobs/a\n0::/\n"), sys());
        assertEquals(512 * MIB, l.limitBytes().getAsLong());
        assertEquals(sys().resolve("memory/jobs/a/memory.limit_in_bytes"), l.binding().get().file());
    }

    @Test
    void v1UnlimitedIsNoLimit() throws IOException {
        file("memory/jobs/a/memory.limit_in_bytes", "9223372036854771712");
        assertTrue(new CgroupLimit(proc("4:memory:/jobs/a\n"), sys()).limitBytes().isEmpty());
    }

    @Test
    void aParentsLimitBindsAnUnlimitedChild() throws IOException {
        file("memory/jobs/memory.limit_in_bytes", Long.toString(256 * MIB));
        file("memory/jobs/a/memory.limit_in_bytes", "9223372036854771712");
        assertEquals(256 * MIB, new CgroupLimit(proc("4:memory:/jobs/a\n"), sys()).limitBytes().getAsLong());
    }

    @Test
    void v2ReadsMemoryMax() throws IOException {
        file("svc/store/memory.max", Long.toString(300 * MIB));
        file("svc/memory.max", "max");
        assertEquals(300 * MIB, new CgroupLimit(proc("0::/svc/store\n"), sys()).limitBytes().getAsLong());
    }

    @Test
    void v2MaxIsNoLimit() throws IOException {
        file("svc/store/memory.max", "max");
        assertTrue(new CgroupLimit(proc("0::/svc/store\n"), sys()).limitBytes().isEmpty());
    }

    @Test
    void hybridHostReadsV2UnderUnified() throws IOException {
        file("unified/svc/memory.max", Long.toString(200 * MIB));
        assertEquals(200 * MIB, new CgroupLimit(proc("4:memory:/\n0::/svc\n"), sys()).limitBytes().getAsLong());
    }

    @Test
    void theSmallerOfV1AndV2Binds() throws IOException {
        file("unified/svc/memory.max", Long.toString(200 * MIB));
        file("memory/svc/memory.limit_in_bytes", Long.toString(100 * MIB));
        assertEquals(100 * MIB, new CgroupLimit(proc("4:memory:/svc\n0::/svc\n"), sys()).limitBytes().getAsLong());
    }

    @Test
    void aContainerSeesItsOwnCgroupAtTheMountsRoot() throws IOException {
        // cgroup namespace: "0::/"; no namespace: the host's path, which does not exist inside the container's mount
        file("memory.max", Long.toString(768 * MIB));
        assertEquals(768 * MIB, new CgroupLimit(proc("0::/\n"), sys()).limitBytes().getAsLong());
        assertEquals(768 * MIB, new CgroupLimit(proc("0::/docker/abc123\n"), sys()).limitBytes().getAsLong());
    }

    @Test
    void noCgroupFilesMeanNoLimit() throws IOException {
        assertTrue(new CgroupLimit(proc("0::/\n"), sys()).limitBytes().isEmpty());
        assertTrue(new CgroupLimit(dir.resolve("missing"), sys()).limitBytes().isEmpty());
    }

    @Test
    void garbageIsNoLimit() throws IOException {
        file("memory/a/memory.limit_in_bytes", "lots");
        assertTrue(new CgroupLimit(proc("4:memory:/a\nnot a line\n"), sys()).limitBytes().isEmpty());
    }

    @Test
    void aPathCannotClimbOutOfTheMount() throws IOException {
        file("memory/memory.limit_in_bytes", Long.toString(64 * MIB));
        Files.writeString(dir.resolve("memory.limit_in_bytes"), Long.toString(MIB));
        assertEquals(64 * MIB, new CgroupLimit(proc("4:memory:/../..\n"), sys()).limitBytes().getAsLong());
    }
}

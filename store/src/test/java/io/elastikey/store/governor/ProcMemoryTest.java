// ProcMemoryTest -- reading VmRSS and MemAvailable from /proc-style files, and failing soft.
package io.elastikey.store.governor;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcMemoryTest {

    @TempDir
    Path dir;

    @Test
    void readsTheFieldsInBytes() throws IOException {
        Path status = Files.writeString(dir.resolve("status"), "Name:\tjava\nVmPeak:\t  900 kB\nVmRSS:\t  123456 kB\n");
        Path meminfo = Files.writeString(dir.resolve("meminfo"),
                "MemTotal:       24684000 kB\nMemFree:        21354000 kB\nMemAvailable:   22705000 kB\n");
        ProcMemory proc = new ProcMemory(status, meminfo);
        assertThat(proc.residentBytes()).isEqualTo(123456L << 10);
        assertThat(proc.availableBytes()).isEqualTo(22705000L << 10);
    }

    @Test
    void missingFilesAndFieldsAreUnknown() throws IOException {
        Path status = Files.writeString(dir.resolve("status"), "Name:\tjava\nVmRSS:\tlots kB\n");
        ProcMemory proc = new ProcMemory(status, dir.resolve("absent"));
        assertThat(proc.residentBytes()).isEqualTo(-1);
        assertThat(proc.availableBytes()).isEqualTo(-1);
        assertThat(ProcMemory.parseKiB("MemAvailableX: 5 kB\n", "MemAvailable")).isEqualTo(-1);
    }

    @Test
    void theRealFilesAreReadableOnLinux() {
        ProcMemory proc = ProcMemory.system();
        if (Files.isReadable(Path.of("/proc/meminfo"))) {
            assertThat(proc.residentBytes()).isPositive();
            assertThat(proc.availableBytes()).isPositive();
        }
    }
}

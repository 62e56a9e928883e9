// ProcessFacts -- what the benchmarks read about a process they started: its memory from /proc and the end of its log.
package io.elastikey.perf;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Shared by the benchmarks that run servers as processes of their own (ski-scale, soak, chaos). */
public final class ProcessFacts {
    private ProcessFacts() {
    }

    /** {VmRSS, VmHWM} of process {@code pid} in KiB, -1 where unreadable (no /proc, or the process is gone). */
    public static long[] memoryKib(long pid) {
        long[] memory = {-1, -1};
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    memory[0] = kib(line);
                } else if (line.startsWith("VmHWM:")) {
                    memory[1] = kib(line);
                }
            }
        } catch (IOException | RuntimeException e) {
            // no /proc (not Linux) or the process is gone
        }
        return memory;
    }

    /** The last {@code lines} lines of {@code file}, for an error message; a note instead when it cannot be read. */
    public static String tail(Path file, int lines) {
        try {
            List<String> all = Files.readAllLines(file, StandardCharsets.ISO_8859_1);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }

    private static long kib(String statusLine) {
        return Long.parseLong(statusLine.replaceAll("[^0-9]", ""));
    }
}

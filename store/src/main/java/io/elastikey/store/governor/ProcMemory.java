// ProcMemory -- the process's resident memory and the machine's available memory, from /proc.
package io.elastikey.store.governor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads {@code VmRSS} from {@code /proc/self/status} and {@code MemAvailable} from
 * {@code /proc/meminfo} (both "{@code Name:   1234 kB}" lines). The paths are injectable so tests
 * can hand in files of their own. A file or field that cannot be read gives -1 ("unknown"), never
 * an exception: the governor then works without that signal. Thread-safe (stateless).
 */
public final class ProcMemory {

    private final Path status;
    private final Path meminfo;

    public ProcMemory(Path status, Path meminfo) {
        this.status = status;
        this.meminfo = meminfo;
    }

    /** The real files of this process and machine. */
    public static ProcMemory system() {
        return new ProcMemory(Path.of("/proc/self/status"), Path.of("/proc/meminfo"));
    }

    /** Resident set size of this process in bytes, or -1. */
    public long residentBytes() {
        return readKiB(status, "VmRSS");
    }

    /** Memory the machine can give without swapping, in bytes, or -1. */
    public long availableBytes() {
        return readKiB(meminfo, "MemAvailable");
    }

    /** The value of {@code field} in {@code file} ("{@code field: N kB}") in bytes, or -1. */
    static long readKiB(Path file, String field) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return parseKiB(text, field);
    }

    static long parseKiB(String text, String field) {
        for (String line : text.split("\n")) {
            int colon = line.indexOf(':');
            if (colon <= 0 || !line.substring(0, colon).equals(field)) {
                continue;
            }
            String[] parts = line.substring(colon + 1).trim().split("\\s+");
            try {
                long value = Long.parseLong(parts[0]);
                if (value < 0) {
                    return -1;
                }
                boolean kib = parts.length > 1 && parts[1].equalsIgnoreCase("kB");
                return kib ? value << 10 : value;
            } catch (NumberFormatException e) {
                return -1;
            }
        }
        return -1;
    }
}

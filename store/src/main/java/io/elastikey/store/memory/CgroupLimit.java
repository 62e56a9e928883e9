// CgroupLimit -- the memory limit the kernel enforces on this process's cgroup (v1 or v2), read from /proc and /sys.
package io.elastikey.store.memory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The memory limit of the cgroup this process runs in, so that a store started without a budget can size itself under
 * it instead of learning its size from the OOM killer.
 *
 * <p>Where it looks: the {@code 0::/path} line of {@code /proc/self/cgroup} (cgroup v2: {@code memory.max}, also
 * under {@code unified/} on a hybrid host) and its {@code :memory:/path} line (cgroup v1:
 * {@code memory/<path>/memory.limit_in_bytes}). The limit that binds is the smallest one on the way to the root, as a
 * limit on a parent holds for every child, so each ancestor directory is read too. A container usually sees its own
 * cgroup as the root of its mount while {@code /proc/self/cgroup} still names the host's path; when that path does
 * not exist under the mount the mount's root is read instead. "max", a missing file or a huge number (v1 writes
 * 9223372036854771712 for "unlimited") mean no limit.
 *
 * <p>The roots are injectable so tests hand in trees of their own. Stateless; nothing here throws for an
 * unreadable file: no limit is the answer then.
 */
public final class CgroupLimit {

    /** At or above this a limit is "unlimited" (v1 rounds 2^63-1 down to a page; nobody has 1 EiB of memory). */
    static final long UNLIMITED_FROM = 1L << 60;

    private final Path procSelfCgroup;
    private final Path cgroupRoot;

    /**
     * @param procSelfCgroup the {@code /proc/self/cgroup} file
     * @param cgroupRoot     where cgroup file systems are mounted ({@code /sys/fs/cgroup})
     */
    public CgroupLimit(Path procSelfCgroup, Path cgroupRoot) {
        this.procSelfCgroup = procSelfCgroup;
        this.cgroupRoot = cgroupRoot;
    }

    /** This process's cgroup on this machine. */
    public static CgroupLimit system() {
        return new CgroupLimit(Path.of("/proc/self/cgroup"), Path.of("/sys/fs/cgroup"));
    }

    /** The memory limit in bytes that binds this process, or empty when there is none (or none could be read). */
    public OptionalLong limitBytes() {
        return binding().map(l -> OptionalLong.of(l.bytes())).orElse(OptionalLong.empty());
    }

    /** The binding limit with the file it came from, or empty. */
    public Optional<Limit> binding() {
        List<String> lines;
        try {
            lines = Files.readAllLines(procSelfCgroup, StandardCharsets.US_ASCII);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
        Limit best = null;
        for (String line : lines) {
            String[] f = line.split(":", 3);
            if (f.length < 3) {
                continue;
            }
            if (f[0].equals("0") && f[1].isEmpty()) {
                best = smaller(best, lowest(cgroupRoot, f[2], "memory.max"));
                best = smaller(best, lowest(cgroupRoot.resolve("unified"), f[2], "memory.max"));
            } else if (List.of(f[1].split(",")).contains("memory")) {
                best = smaller(best, lowest(cgroupRoot.resolve("memory"), f[2], "memory.limit_in_bytes"));
            }
        }
        return Optional.ofNullable(best);
    }

    /** The smallest limit in {@code file} of the cgroup at {@code path} under {@code mount} and its ancestors. */
    private static Limit lowest(Path mount, String path, String file) {
        if (!Files.isDirectory(mount)) {
            return null;
        }
        Path dir = mount;
        for (String part : path.split("/")) {
            if (!part.isEmpty() && !part.equals(".") && !part.equals("..")) {
                dir = dir.resolve(part);
            }
        }
        if (!Files.isDirectory(dir)) {
            dir = mount; // a container: its own cgroup is the root of the mount
        }
        Limit best = null;
        for (Path d = dir; d != null && d.startsWith(mount); d = d.getParent()) {
            Path f = d.resolve(file);
            long bytes = read(f);
            if (bytes >= 0) {
                best = smaller(best, new Limit(bytes, f));
            }
        }
        return best;
    }

    /** The limit in the file, or -1 for "max", unlimited, missing or unreadable. */
    static long read(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.US_ASCII).trim();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        try {
            long v = Long.parseLong(text);
            return v < 0 || v >= UNLIMITED_FROM ? -1 : v;
        } catch (NumberFormatException e) {
            return -1; // "max"
        }
    }

    private static Limit smaller(Limit a, Limit b) {
        if (a == null) {
            return b;
        }
        return b == null || a.bytes() <= b.bytes() ? a : b;
    }

    /** A limit in bytes and the file that set it (for the line a store prints at start). */
    public record Limit(long bytes, Path file) {
    }
}

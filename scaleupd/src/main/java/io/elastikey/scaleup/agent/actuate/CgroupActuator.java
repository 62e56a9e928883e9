// CgroupActuator -- sets the asking process's cgroup memory limit to a base plus its grant.
package io.elastikey.scaleup.agent.actuate;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * Turns a grant into a kernel memory limit for the process that asked: reads {@code <proc>/<pid>/cgroup}, finds the
 * process's memory cgroup and writes {@code (base + grant) MiB} in bytes to it, the way a disaggregated-memory
 * platform would hot-plug RAM into a VM.
 *
 * <ul>
 *   <li>cgroup v1 (a line {@code N:...memory...:/path}): {@code <root>/memory/<path>/memory.limit_in_bytes};</li>
 *   <li>cgroup v2 (the line {@code 0::/path}): {@code <root>/<path>/memory.max}.</li>
 * </ul>
 * A v1 memory line wins over a v2 line (hybrid hosts account memory in v1). The base is the memory the process
 * needs before any grant ({@code --cgroup-base}, 512 MiB by default): a process whose grant is released goes back
 * to it rather than to "no memory".
 *
 * <p>Only a cgroup whose {@code cgroup.procs} lists the client alone is written: a limit on a shared cgroup (a login
 * session, a whole container) would cap every process in it.
 *
 * <p>Nothing here throws: a process in the root cgroup (whose limit cannot be set) or in a shared one, an unknown PID,
 * a missing or read-only file give a "limit not applied" note and the grant stands in the ledger. Both roots are constructor
 * arguments so tests run against a fake tree.
 */
public final class CgroupActuator implements Actuator {
    private static final long MIB = 1024 * 1024;

    private final Path cgroupRoot;
    private final Path procRoot;
    private final long baseMb;

    /** @param cgroupRoot normally {@code /sys/fs/cgroup}; @param procRoot normally {@code /proc} */
    public CgroupActuator(Path cgroupRoot, Path procRoot, long baseMb) {
        this.cgroupRoot = cgroupRoot;
        this.procRoot = procRoot;
        this.baseMb = baseMb;
    }

    @Override
    public String name() {
        return "cgroup";
    }

    @Override
    public Actuation apply(String client, long grantMb, int peerPid) {
        if (peerPid <= 0) {
            return Actuation.notApplied("cgroup limit not applied: the peer's PID is unknown");
        }
        Path limitFile;
        try {
            limitFile = limitFile(peerPid);
        } catch (IOException e) {
            return Actuation.notApplied("cgroup limit not applied: cannot read the cgroup of process " + peerPid
                    + " (" + e.getMessage() + ")");
        }
        if (limitFile == null) {
            return Actuation.notApplied("cgroup limit not applied: process " + peerPid
                    + " is in the root memory cgroup, whose limit cannot be set");
        }
        if (!Files.exists(limitFile)) {
            return Actuation.notApplied("cgroup limit not applied: " + limitFile + " does not exist");
        }
        String shared = sharedWith(limitFile.getParent(), peerPid);
        if (shared != null) {
            return Actuation.notApplied("cgroup limit not applied: " + shared);
        }
        long bytes = (baseMb + grantMb) * MIB;
        try {
            Files.writeString(limitFile, Long.toString(bytes), StandardCharsets.US_ASCII,
                    StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
        } catch (AccessDeniedException e) {
            return Actuation.notApplied("cgroup limit not applied: " + limitFile + " is not writable");
        } catch (NoSuchFileException e) {
            return Actuation.notApplied("cgroup limit not applied: " + limitFile + " does not exist");
        } catch (IOException e) {
            return Actuation.notApplied("cgroup limit not applied: writing " + bytes + " to " + limitFile
                    + " failed (" + e.getMessage() + ")");
        }
        return Actuation.applied("cgroup limit " + (baseMb + grantMb) + " MiB written to " + limitFile);
    }

    /**
     * Why the cgroup in {@code dir} is not the client's own, or {@code null} if {@code cgroup.procs} lists only
     * {@code pid}. A limit on a cgroup that other processes share would cap them too (a login session, a whole
     * container), so the agent writes only to a cgroup that holds the client alone.
     */
    private static String sharedWith(Path dir, int pid) {
        List<String> procs;
        try {
            procs = Files.readAllLines(dir.resolve("cgroup.procs"), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            return "cannot list the processes of " + dir + " (" + e.getMessage() + ")";
        }
        long others = procs.stream().map(String::trim).filter(p -> !p.isEmpty() && !p.equals(Integer.toString(pid)))
                .count();
        return others == 0 ? null : dir + " also holds " + others + " other process(es); the agent limits only a "
                + "cgroup of the client's own (start the client in a cgroup of its own)";
    }

    /** The limit file of the process's memory cgroup, or {@code null} for the root cgroup. */
    Path limitFile(int pid) throws IOException {
        List<String> lines = Files.readAllLines(procRoot.resolve(Integer.toString(pid)).resolve("cgroup"),
                StandardCharsets.UTF_8);
        String v2 = null;
        for (String line : lines) {
            String[] f = line.split(":", 3);
            if (f.length != 3) {
                continue;
            }
            if (f[0].equals("0") && f[1].isEmpty()) {
                v2 = f[2];
            } else if (List.of(f[1].split(",")).contains("memory")) {
                return file(cgroupRoot.resolve("memory"), f[2], "memory.limit_in_bytes");
            }
        }
        if (v2 == null) {
            throw new IOException("no memory cgroup listed");
        }
        return file(cgroupRoot, v2, "memory.max");
    }

    private static Path file(Path root, String cgroupPath, String name) throws IOException {
        if (!cgroupPath.startsWith("/") || cgroupPath.contains("/../") || cgroupPath.endsWith("/..")) {
            throw new IOException("unexpected cgroup path");
        }
        String relative = cgroupPath.substring(1);
        return relative.isEmpty() ? null : root.resolve(relative).resolve(name);
    }
}

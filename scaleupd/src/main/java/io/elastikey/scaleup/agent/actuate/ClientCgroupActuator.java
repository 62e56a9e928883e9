// ClientCgroupActuator -- a memory cgroup per client under a parent the agent is given: the client's process moved in, its limit set on every grant.
package io.elastikey.scaleup.agent.actuate;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * The cgroup actuator for a machine whose clients do not come in cgroups of their own: the agent is given a parent
 * cgroup ({@code --cgroup-parent}, e.g. {@code /sys/fs/cgroup/memory/elastikey} on cgroup v1 or
 * {@code /sys/fs/cgroup/elastikey.slice} on v2), creates {@code <parent>/<client>} at the client's first request,
 * moves the asking process (its PID from {@code SO_PEERCRED}) into it, and on every grant and release writes the
 * limit {@code (base + grant) MiB}:
 *
 * <ul>
 *   <li>cgroup v1: {@code memory.limit_in_bytes}. A limit below the cgroup's use makes the kernel reclaim first; if
 *       it cannot (anonymous memory, no swap) the write fails with EBUSY and the note says so: the client must give
 *       memory back before its limit can drop (its governor shrinks its tier on a smaller grant);</li>
 *   <li>cgroup v2: {@code memory.max} and {@code memory.high} at 15/16 of it, so the kernel throttles and reclaims
 *       the client before the hard limit rather than OOM-killing at it. The parent's {@code cgroup.subtree_control}
 *       gets {@code +memory} at start if it lacks it.</li>
 * </ul>
 * The version is detected at start from the parent's files ({@code memory.limit_in_bytes}: v1;
 * {@code cgroup.controllers} listing {@code memory}: v2). The process moves in only if it is not already there; one
 * already in a cgroup of its own elsewhere is moved too (the agent owns the parent's tree, not the client).
 * Like every actuator it never throws for the environment's refusal: the grant stands and the note says why.
 * The agent leaves the client cgroups in place when it stops; an empty one is removed with {@code rmdir}.
 */
public final class ClientCgroupActuator implements Actuator {
    private static final long MIB = 1024 * 1024;

    /** The cgroup interface the parent speaks. */
    public enum Version { V1, V2 }

    private final Path parent;
    private final Version version;
    private final long baseMb;

    private ClientCgroupActuator(Path parent, Version version, long baseMb) {
        this.parent = parent;
        this.version = version;
        this.baseMb = baseMb;
    }

    /**
     * Detects the parent's cgroup version and, on v2, enables the memory controller for its children.
     *
     * @throws IOException naming what is missing when {@code parent} is not a memory cgroup the agent can use
     */
    public static ClientCgroupActuator open(Path parent, long baseMb) throws IOException {
        if (!Files.isDirectory(parent)) {
            throw new IOException("--cgroup-parent " + parent + " is not a directory (create it: mkdir " + parent + ")");
        }
        if (Files.exists(parent.resolve("memory.limit_in_bytes"))) {
            return new ClientCgroupActuator(parent, Version.V1, baseMb);
        }
        Path controllers = parent.resolve("cgroup.controllers");
        if (!Files.exists(controllers)) {
            throw new IOException("--cgroup-parent " + parent + " is not a memory cgroup (no memory.limit_in_bytes, "
                    + "no cgroup.controllers)");
        }
        if (!words(controllers).contains("memory")) {
            throw new IOException("--cgroup-parent " + parent + ": the memory controller is not available there ("
                    + controllers + " lists no memory; enable it in the parent's parent's cgroup.subtree_control)");
        }
        Path subtree = parent.resolve("cgroup.subtree_control");
        if (!words(subtree).contains("memory")) {
            write(subtree, "+memory");
        }
        return new ClientCgroupActuator(parent, Version.V2, baseMb);
    }

    private static List<String> words(Path file) throws IOException {
        return List.of(Files.readString(file, StandardCharsets.US_ASCII).trim().split("\\s+"));
    }

    @Override
    public String name() {
        return "cgroup";
    }

    @Override
    public String describe() {
        return "cgroup (" + (version == Version.V1 ? "v1" : "v2") + ", a cgroup per client under " + parent
                + ", base " + baseMb + " MiB)";
    }

    public Version version() {
        return version;
    }

    /** The cgroup directory of {@code client}. */
    public Path cgroupOf(String client) {
        StringBuilder b = new StringBuilder();
        for (char c : client.toCharArray()) {
            b.append(Character.isLetterOrDigit(c) && c < 128 || c == '-' || c == '_' || c == '.' ? c : '_');
        }
        String name = b.toString();
        return parent.resolve(name.startsWith(".") ? "_" + name.substring(1) : name);
    }

    @Override
    public Actuation apply(String client, long grantMb, int peerPid) {
        Path dir = cgroupOf(client);
        long bytes = (baseMb + grantMb) * MIB;
        try {
            if (!Files.isDirectory(dir)) {
                Files.createDirectory(dir);
            }
        } catch (IOException e) {
            return Actuation.notApplied("cgroup limit not applied: cannot create " + dir + " (" + e + ")");
        }
        String limitNote;
        try {
            if (version == Version.V1) {
                write(dir.resolve("memory.limit_in_bytes"), Long.toString(bytes));
            } else {
                write(dir.resolve("memory.max"), Long.toString(bytes));
                write(dir.resolve("memory.high"), Long.toString(bytes - bytes / 16));
            }
            limitNote = "cgroup limit " + (baseMb + grantMb) + " MiB written to " + dir;
        } catch (IOException e) {
            return Actuation.notApplied("cgroup limit not applied: writing " + (baseMb + grantMb) + " MiB to " + dir
                    + " failed (" + e.getMessage() + ")" + (version == Version.V1
                    ? "; the kernel refuses a v1 limit below what it cannot reclaim: give memory back first" : ""));
        }
        if (peerPid <= 0) {
            return Actuation.notApplied(limitNote + ", but the asking process's PID is unknown: not moved into it");
        }
        Path procs = dir.resolve("cgroup.procs");
        try {
            boolean inside = Files.readAllLines(procs, StandardCharsets.US_ASCII).stream().map(String::trim)
                    .anyMatch(p -> p.equals(Integer.toString(peerPid)));
            if (!inside) {
                write(procs, Integer.toString(peerPid));
                return Actuation.applied(limitNote + "; process " + peerPid + " moved into it");
            }
        } catch (IOException e) {
            return Actuation.notApplied(limitNote + ", but process " + peerPid + " could not be moved into it ("
                    + e.getMessage() + ")");
        }
        return Actuation.applied(limitNote);
    }

    /**
     * A limit lowered at a give-back deadline. The limit is written as for a grant; no process is moved. If a v1
     * kernel refuses it (the client holds more than it and the kernel cannot reclaim the difference: EBUSY), the
     * limit goes to what the cgroup uses now, rounded up to a MiB, the lowest the kernel takes without killing: the
     * client can no longer grow, and every page it frees lowers what it can take back. (v2's {@code memory.max} is
     * always taken: the kernel reclaims, then OOM-kills, to meet it.)
     */
    @Override
    public Actuation force(String client, long grantMb, int ownerPid) {
        Path dir = cgroupOf(client);
        long mb = baseMb + grantMb;
        try {
            if (version == Version.V1) {
                write(dir.resolve("memory.limit_in_bytes"), Long.toString(mb * MIB));
            } else {
                write(dir.resolve("memory.max"), Long.toString(mb * MIB));
                write(dir.resolve("memory.high"), Long.toString(mb * MIB - mb * MIB / 16));
            }
            return Actuation.applied("cgroup limit " + mb + " MiB written to " + dir);
        } catch (IOException e) {
            if (version != Version.V1) {
                return Actuation.notApplied("cgroup limit not applied: writing " + mb + " MiB to " + dir + " failed ("
                        + e.getMessage() + ")");
            }
        }
        try {
            long used = Long.parseLong(Files.readString(dir.resolve("memory.usage_in_bytes")).trim());
            long floorMb = (used + MIB - 1) / MIB + 1;
            write(dir.resolve("memory.limit_in_bytes"), Long.toString(floorMb * MIB));
            return Actuation.applied("the kernel refused a cgroup limit of " + mb + " MiB (the client uses more and "
                    + "it cannot be reclaimed); limit lowered to " + floorMb + " MiB, its use now, in " + dir);
        } catch (IOException | NumberFormatException e) {
            return Actuation.notApplied("cgroup limit not applied: the kernel refused " + mb + " MiB and its use in "
                    + dir + " too (" + e.getMessage() + ")");
        }
    }

    private static void write(Path file, String value) throws IOException {
        Files.writeString(file, value, StandardCharsets.US_ASCII, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);
    }
}

// SmallDisk -- a small tmpfs file system for the chaos run's disk-full event: mounted, filled to the last byte, freed.
package io.elastikey.perf.soak;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A disk that can really be full: {@code mount -t tmpfs -o size=SIZE tmpfs DIR} (root only), so a server writing
 * there gets {@code ENOSPC} from the kernel as it would on a full disk, while the rest of the machine is untouched.
 * {@link #fill} writes a filler file until the file system refuses another byte; {@link #free} deletes it.
 */
final class SmallDisk implements AutoCloseable {
    private final Path mountPoint;
    private final String size;
    private final Path filler;

    private SmallDisk(Path mountPoint, String size) {
        this.mountPoint = mountPoint;
        this.size = size;
        this.filler = mountPoint.resolve("filler");
    }

    /** Mounts a tmpfs of {@code size} (e.g. {@code 64m}) at {@code mountPoint}, created if missing. */
    static SmallDisk mount(Path mountPoint, String size) throws IOException, InterruptedException {
        Files.createDirectories(mountPoint);
        run("mount", "-t", "tmpfs", "-o", "size=" + size + ",mode=0700", "tmpfs", mountPoint.toString());
        return new SmallDisk(mountPoint, size);
    }

    Path path() {
        return mountPoint;
    }

    String size() {
        return size;
    }

    /** Bytes still free for an unprivileged writer. */
    long usable() throws IOException {
        return Files.getFileStore(mountPoint).getUsableSpace();
    }

    /** Writes the filler until the file system is full; returns how many bytes it took. */
    long fill() throws IOException {
        byte[] chunk = new byte[64 * 1024];
        long written = 0;
        try (OutputStream out = Files.newOutputStream(filler)) {
            while (true) {
                try {
                    out.write(chunk);
                    out.flush();
                    written += chunk.length;
                } catch (IOException full) {
                    break; // No space left on device: what we came for
                }
            }
        } catch (IOException closing) {
            // closing a full file may fail too
        }
        for (int size = 4096; size >= 1; size /= 2) { // the last partial chunk's worth
            try (OutputStream out = Files.newOutputStream(filler, java.nio.file.StandardOpenOption.APPEND)) {
                out.write(new byte[size]);
                written += size;
            } catch (IOException full) {
                // smaller next
            }
        }
        return written;
    }

    /** Deletes the filler. */
    void free() throws IOException {
        Files.deleteIfExists(filler);
    }

    @Override
    public void close() throws IOException, InterruptedException {
        run("umount", mountPoint.toString());
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + output);
        }
    }
}

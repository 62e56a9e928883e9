// CrashWriter -- the child JVM of CrashSafetyTest: writes to an ElasticStore until it is killed.
package io.elastikey.store.elastic;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;

/**
 * Run by {@link CrashSafetyTest} in a JVM of its own, which the test kills with SIGKILL at a random
 * moment. Arguments: {@code directory fsyncPolicy versionBase seed keys}.
 *
 * <p>It opens the store (recovering it if the last process was killed), reports what every key
 * holds, then writes from {@link #WRITERS} threads forever: puts and some deletes of keys
 * {@code 0 .. keys-1}, key {@code k} written only by thread {@code k % WRITERS}, so each key's
 * operations happen, and are reported, one at a time and in version order. Every operation takes
 * the key's next version, starting after {@code versionBase}; the test passes a larger base each
 * round, so versions grow across rounds too. Every fourth operation a thread also reads back one of
 * its keys, which must hold exactly what the thread last wrote there, and every delete must return
 * whether the key was present.
 *
 * <h2>Protocol</h2>
 * One event per stdout line, each written by a single {@code write(2)}, so a line that the process
 * wrote is in the pipe even if the process dies right after:
 * <pre>
 *   STATE key ABSENT | STATE key PRESENT version | STATE key CORRUPT reason   (at start, per key)
 *   READY pid
 *   BEGIN PUT key version        before the put is called
 *   ACK PUT key version          after it returned
 *   BEGIN DEL key version
 *   ACK DEL key version present  after delete returned, with its result
 *   FAIL message                 a check inside the child failed
 * </pre>
 * Logging goes to stderr.
 *
 * <h2>Values</h2>
 * The value of (key, version) is a pure function of both, so a reader can check every byte:
 * <pre>
 *   0  int   magic "CWKV"
 *   4  int   key
 *   8  long  version
 *  16  int   padding length P (40 .. 940, drawn from a generator seeded by key and version)
 *  20  P bytes of padding from the same generator
 *  20+P int  CRC32C of bytes 0 .. 20+P
 * </pre>
 */
final class CrashWriter {

    static final int WRITERS = 2;
    private static final int MAGIC = 0x43574b56; // "CWKV"
    private static final int MIN_PAD = 40;
    private static final int MAX_PAD = 940;
    private static final int DELETE_PERCENT = 15;

    private final ElasticStore store;
    private final Lines out;
    private final long seed;
    /** Per key: the version its last operation took. */
    private final long[] versions;
    /** Per key: the version the store holds, 0 when absent, -1 when unknown (it was corrupt at start). */
    private final long[] held;

    private CrashWriter(ElasticStore store, Lines out, long seed, long versionBase, int keys) {
        this.store = store;
        this.out = out;
        this.seed = seed;
        this.versions = new long[keys];
        this.held = new long[keys];
        Arrays.fill(versions, versionBase);
    }

    /**
     * The store's settings, shared by the child and the test's own checks: small segments, a small
     * memory tier, and compaction and checkpoints every few dozen milliseconds, so that a kill
     * often lands in one of them.
     */
    static ElasticStoreConfig config(Path dir, FsyncPolicy policy) {
        return ElasticStoreConfig.builder(dir)
                .fsyncPolicy(policy)
                .segmentSizeBytes(64 << 10)
                .memoryBudgetBytes(64 << 10)
                .indexCapacity(4096)
                .averageKeySize(8)
                .averageValueSize(512)
                .compactionIntervalMillis(50)
                .checkpointIntervalMillis(100)
                .build();
    }

    static byte[] key(int k) {
        return ("key-" + k).getBytes(StandardCharsets.US_ASCII);
    }

    /** The one value (key, version) may have; see the class comment for its layout. */
    static byte[] value(int key, long version) {
        SplittableRandom r = new SplittableRandom(key * 0x9E3779B97F4A7C15L + version);
        byte[] padding = new byte[MIN_PAD + r.nextInt(MAX_PAD - MIN_PAD + 1)];
        r.nextBytes(padding);
        ByteBuffer b = ByteBuffer.allocate(20 + padding.length + 4);
        b.putInt(MAGIC).putInt(key).putLong(version).putInt(padding.length).put(padding);
        b.putInt(crc(b.array(), b.position()));
        return b.array();
    }

    /**
     * The version {@code value} was written with, after checking every byte of it.
     *
     * @throws IllegalArgumentException saying what is wrong, when it is not a value of this key
     */
    static long versionOf(int key, byte[] value) {
        if (value.length < 24 + MIN_PAD) {
            throw new IllegalArgumentException("value of " + value.length + " bytes is too short");
        }
        ByteBuffer b = ByteBuffer.wrap(value);
        if (crc(value, value.length - 4) != b.getInt(value.length - 4)) {
            throw new IllegalArgumentException("checksum mismatch in a value of " + value.length + " bytes");
        }
        if (b.getInt(0) != MAGIC || b.getInt(4) != key) {
            throw new IllegalArgumentException("value belongs to key " + b.getInt(4) + " (magic "
                    + Integer.toHexString(b.getInt(0)) + ")");
        }
        long version = b.getLong(8);
        if (!Arrays.equals(value, value(key, version))) {
            throw new IllegalArgumentException("value differs from the one version " + version + " wrote");
        }
        return version;
    }

    private static int crc(byte[] b, int length) {
        CRC32C c = new CRC32C();
        c.update(b, 0, length);
        return (int) c.getValue();
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        FsyncPolicy policy = FsyncPolicy.valueOf(args[1]);
        long versionBase = Long.parseLong(args[2]);
        long seed = Long.parseLong(args[3]);
        int keys = Integer.parseInt(args[4]);
        Lines out = new Lines(new FileOutputStream(FileDescriptor.out));
        System.setOut(System.err); // logging (a console appender) must not mix with the protocol

        ElasticStore store = ElasticStore.open(config(dir, policy));
        CrashWriter w = new CrashWriter(store, out, seed, versionBase, keys);
        w.reportState();
        out.line("READY " + ProcessHandle.current().pid());
        Thread[] writers = new Thread[WRITERS];
        for (int i = 0; i < WRITERS; i++) {
            int id = i;
            writers[i] = new Thread(() -> w.writeLoop(id), "crash-writer-" + i);
            writers[i].start();
        }
        for (Thread t : writers) {
            t.join(); // only after a failure: the writers otherwise run until the process is killed
        }
    }

    private void reportState() throws IOException {
        for (int k = 0; k < held.length; k++) {
            String state;
            try {
                byte[] v = store.get(key(k));
                held[k] = v == null ? 0 : versionOf(k, v);
                state = v == null ? "ABSENT" : "PRESENT " + held[k];
            } catch (RuntimeException e) {
                held[k] = -1;
                state = "CORRUPT " + e.toString().replace('\n', ' ');
            }
            out.line("STATE " + k + " " + state);
        }
    }

    private void writeLoop(int writer) {
        SplittableRandom rnd = new SplittableRandom(seed * 31 + writer);
        int owned = (held.length - writer + WRITERS - 1) / WRITERS;
        try {
            for (long op = 1; ; op++) {
                int k = writer + WRITERS * rnd.nextInt(owned);
                long version = ++versions[k];
                if (rnd.nextInt(100) < DELETE_PERCENT) {
                    delete(k, version);
                } else {
                    put(k, version);
                }
                if (op % 4 == 0) {
                    checkOwnKey(writer + WRITERS * rnd.nextInt(owned));
                }
            }
        } catch (IOException | RuntimeException e) {
            e.printStackTrace();
            try {
                out.line("FAIL writer " + writer + ": " + e.toString().replace('\n', ' '));
            } catch (IOException ignored) {
                // stdout is gone: the test sees the missing acknowledgements
            }
        }
    }

    private void put(int k, long version) throws IOException {
        out.line("BEGIN PUT " + k + " " + version);
        store.put(key(k), value(k, version));
        out.line("ACK PUT " + k + " " + version);
        held[k] = version;
    }

    private void delete(int k, long version) throws IOException {
        out.line("BEGIN DEL " + k + " " + version);
        boolean was = store.delete(key(k));
        out.line("ACK DEL " + k + " " + version + " " + was);
        if (held[k] >= 0 && was != (held[k] > 0)) {
            out.line("FAIL delete of key " + k + " returned " + was + " but the key was "
                    + (was ? "absent" : "present"));
        }
        held[k] = 0;
    }

    /** Reads back a key only this thread writes: it must hold exactly what this thread last wrote. */
    private void checkOwnKey(int k) throws IOException {
        if (held[k] < 0) {
            return;
        }
        byte[] v = store.get(key(k));
        String problem = null;
        if (v == null) {
            problem = held[k] > 0 ? "absent instead of version " + held[k] : null;
        } else if (held[k] == 0) {
            problem = "present though deleted";
        } else {
            try {
                long got = versionOf(k, v);
                problem = got == held[k] ? null : "version " + got + " instead of " + held[k];
            } catch (IllegalArgumentException e) {
                problem = e.getMessage();
            }
        }
        if (problem != null) {
            out.line("FAIL read-your-writes: key " + k + " is " + problem);
        }
    }

    /** Protocol lines to stdout, one {@code write(2)} each. */
    private static final class Lines {
        private final OutputStream out;

        Lines(OutputStream out) {
            this.out = out;
        }

        synchronized void line(String s) throws IOException {
            out.write((s + "\n").getBytes(StandardCharsets.US_ASCII));
        }
    }
}

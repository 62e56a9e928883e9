// GroupCommitWriter -- the child JVM of GroupCommitCrashTest: many threads putting distinct keys until SIGKILL.
package io.elastikey.store.elastic;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Arguments: {@code directory threads}. Opens the store (GROUP fsync, the default), prints {@code READY}, then
 * each of {@code threads} threads puts keys {@code t-0, t-1, ...} with {@link #value} and prints
 * {@code ACK t i} after each put returns, one {@code write(2)} per line, so a line written is in the pipe even
 * if the process dies right after. Every 250 acknowledgements it also prints {@code FSYNCS n}, the log's
 * fsync count, so the test can show that the writers shared fsyncs.
 */
final class GroupCommitWriter {
    private static final java.util.concurrent.atomic.AtomicLong ACKED = new java.util.concurrent.atomic.AtomicLong();
    private GroupCommitWriter() {
    }

    static byte[] key(int thread, long i) {
        return (thread + "-" + i).getBytes(StandardCharsets.US_ASCII);
    }

    /** 200 to 1200 bytes that depend on the key alone. */
    static byte[] value(int thread, long i) {
        long x = thread * 1_000_003L + i * 7919L;
        byte[] v = new byte[200 + (int) (Math.floorMod(x, 1000L))];
        for (int j = 0; j < v.length; j++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            v[j] = (byte) (x >>> 56);
        }
        return v;
    }

    static ElasticStoreConfig config(Path dir) {
        return ElasticStoreConfig.builder(dir).fsyncPolicy(FsyncPolicy.GROUP).segmentSizeBytes(1 << 20)
                .memoryBudgetBytes(1 << 20).indexCapacity(1 << 16).averageKeySize(8).averageValueSize(700)
                .build();
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int threads = Integer.parseInt(args[1]);
        OutputStream out = new FileOutputStream(FileDescriptor.out);
        System.setOut(System.err);
        ElasticStore store = ElasticStore.open(config(dir));
        line(out, "READY");
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread w = new Thread(() -> {
                try {
                    for (long i = 0; ; i++) {
                        store.put(key(id, i), value(id, i));
                        line(out, "ACK " + id + " " + i);
                        if (ACKED.incrementAndGet() % 250 == 0) {
                            line(out, "FSYNCS " + store.logFsyncs());
                        }
                    }
                } catch (IOException | RuntimeException e) {
                    e.printStackTrace();
                }
            }, "writer-" + t);
            w.start();
        }
        Thread.currentThread().join();
    }

    private static void line(OutputStream out, String s) throws IOException {
        byte[] b = (s + "\n").getBytes(StandardCharsets.US_ASCII);
        synchronized (out) {
            out.write(b);
        }
    }
}

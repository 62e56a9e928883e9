// InterruptedCallerTest -- a caller's thread interrupted during a store call must not break the store for others.
package io.elastikey.store.elastic;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Applications interrupt threads (a cancelled future, a shutting-down executor). A
 * {@link java.nio.channels.FileChannel} closes itself when a thread blocked in it is interrupted,
 * and the store shares one channel per segment among all threads, so an interrupted caller may at
 * most fail its own call: every other call, then and later, must work.
 */
class InterruptedCallerTest {

    @TempDir
    Path dir;

    private ElasticStoreConfig config() {
        return ElasticStoreConfig.builder(dir).memoryBudgetBytes(0).fsyncPolicy(FsyncPolicy.NEVER)
                .indexCapacity(10_000).compactionIntervalMillis(0).checkpointIntervalMillis(0).build();
    }

    @Test
    void anInterruptedReaderDoesNotBreakReadsOfOtherThreads() throws Exception {
        try (ElasticStore store = ElasticStore.open(config())) {
            for (int i = 0; i < 100; i++) {
                store.put(key(i), value(i, 1));
            }
            AtomicReference<Object> outcome = runInterrupted(() -> store.get(key(5)));
            System.out.println("the interrupted get ended with " + outcome.get());

            for (int i = 0; i < 100; i++) {
                assertThat(store.get(key(i))).as("key %d, read from disk after another thread's interrupted read", i)
                        .isEqualTo(value(i, 1));
            }
        }
    }

    @Test
    void anInterruptedWriterDoesNotBreakLaterWrites() throws Exception {
        try (ElasticStore store = ElasticStore.open(config())) {
            for (int i = 0; i < 100; i++) {
                store.put(key(i), value(i, 1));
            }
            AtomicReference<Object> outcome = runInterrupted(() -> {
                store.put(key(5), value(5, 2));
                return "put done";
            });
            System.out.println("the interrupted put ended with " + outcome.get());

            store.put(key(7), value(7, 2));
            assertThat(store.get(key(7))).isEqualTo(value(7, 2));
            assertThat(store.get(key(8))).isEqualTo(value(8, 1));
        }
        try (ElasticStore store = ElasticStore.open(config())) {
            assertThat(store.get(key(7))).as("a write after the interrupted one, after a restart")
                    .isEqualTo(value(7, 2));
            byte[] five = store.get(key(5));
            assertThat(Arrays.equals(five, value(5, 1)) || Arrays.equals(five, value(5, 2)))
                    .as("the interrupted write's key holds its old or its new value").isTrue();
        }
    }

    /** Runs {@code call} on a new thread whose interrupt flag is set; returns its result or exception. */
    private static AtomicReference<Object> runInterrupted(Callable<Object> call)
            throws InterruptedException {
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread t = new Thread(() -> {
            Thread.currentThread().interrupt();
            try {
                outcome.set(call.call());
            } catch (Exception e) {
                outcome.set(e);
            }
        }, "interrupted-caller");
        t.start();
        t.join();
        return outcome;
    }

    private static byte[] key(int i) {
        return ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i, int version) {
        return ("value-" + i + "-v" + version + "-" + "x".repeat(i * 10)).getBytes(StandardCharsets.UTF_8);
    }
}

// GroupCommitCrashTest -- many writers sharing fsyncs, SIGKILLed: every acknowledged put is there after reopening.
package io.elastikey.store.elastic;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Group commit's promise under a crash: a put returns only once an fsync covering it has completed, however many
 * writers share that fsync. 32 threads in a child JVM ({@link GroupCommitWriter}) put distinct keys and report
 * each acknowledgement; the test SIGKILLs the child after a few thousand, reopens the store (recovery replays and
 * truncates the torn tail) and reads every acknowledged key back, byte for byte. Three rounds on fresh stores.
 * The child's fsync count shows the sharing (printed, not asserted: how many writers meet in one fsync is timing).
 */
class GroupCommitCrashTest {
    private static final int THREADS = 32;

    @TempDir
    Path tmp;

    @Test
    void everyAcknowledgedPutSurvivesASigkillOfManyConcurrentWriters() throws Exception {
        for (int round = 0; round < 3; round++) {
            Path dir = tmp.resolve("store-" + round);
            Map<Integer, Long> acked = new HashMap<>();
            long fsyncs = 0;
            List<String> cmd = ChildJvm.command(ChildJvm.buildJvmFlags(), GroupCommitWriter.class, dir.toString(),
                    Integer.toString(THREADS));
            Process child = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            long acks = 0;
            long stopAt = 2_000 + 1_500L * round;
            try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.US_ASCII))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    String[] f = line.split(" ");
                    if (f[0].equals("ACK")) {
                        acked.merge(Integer.parseInt(f[1]), Long.parseLong(f[2]), Math::max);
                        if (++acks == stopAt) {
                            // SIGKILL in the middle of puts and fsyncs; through the handle, which (unlike
                            // Process.destroyForcibly) leaves the pipe open for the lines already written
                            child.toHandle().destroyForcibly();
                        }
                    } else if (f[0].equals("FSYNCS")) {
                        fsyncs = Long.parseLong(f[1]);
                    }
                }
            }
            assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(acks).as("the child acknowledged puts before the kill").isGreaterThanOrEqualTo(stopAt);
            System.out.printf("[group commit] round %d: %d puts acknowledged by %d threads, %d fsyncs by then%n",
                    round, acks, acked.size(), fsyncs);

            try (ElasticStore store = ElasticStore.open(GroupCommitWriter.config(dir))) {
                long checked = 0;
                for (Map.Entry<Integer, Long> e : acked.entrySet()) {
                    int t = e.getKey();
                    for (long i = 0; i <= e.getValue(); i++) { // a thread's puts are acknowledged in order
                        assertThat(store.get(GroupCommitWriter.key(t, i)))
                                .as("acknowledged put %d-%d after the kill", t, i)
                                .isEqualTo(GroupCommitWriter.value(t, i));
                        checked++;
                    }
                }
                assertThat(checked).isGreaterThanOrEqualTo(stopAt);
            }
        }
    }
}

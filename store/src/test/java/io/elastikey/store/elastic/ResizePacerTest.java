// ResizePacerTest -- a resize pauses only while lookups run, and never at duty 1.
package io.elastikey.store.elastic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

class ResizePacerTest {

    /** Steps through {@code slices} slices of work, each longer than a slice, bumping {@code lookups} if asked. */
    private static ResizePacer work(double duty, AtomicLong lookups, boolean busy, int slices) {
        ResizePacer pacer = new ResizePacer(duty, lookups::get);
        for (int s = 0; s < slices; s++) {
            long until = System.nanoTime() + ResizePacer.SLICE_NANOS + 100_000;
            while (System.nanoTime() - until < 0) {
                LockSupport.parkNanos(100_000);
            }
            if (busy) {
                lookups.incrementAndGet();
            }
            for (int i = 0; i < ResizePacer.CHECK_EVERY; i++) {
                pacer.step();
            }
        }
        return pacer;
    }

    @Test
    void pausesAfterSlicesDuringWhichLookupsRan() {
        ResizePacer pacer = work(0.5, new AtomicLong(), true, 5);
        assertThat(pacer.pauses()).isEqualTo(5);
        assertThat(pacer.pausedNanos()).isPositive();
    }

    @Test
    void anIdleStoreIsResizedWithoutPauses() {
        assertThat(work(0.5, new AtomicLong(), false, 5).pauses()).isZero();
    }

    @Test
    void dutyOneNeverPauses() {
        assertThat(work(1, new AtomicLong(), true, 5).pauses()).isZero();
    }

    @Test
    void dutyOutsideTheRangeIsRefused() {
        assertThatThrownBy(() -> new ResizePacer(0, () -> 0)).hasMessageContaining("duty");
        assertThatThrownBy(() -> ElasticStoreConfig.builder(java.nio.file.Path.of("x")).resizeDutyCycle(1.5).build())
                .hasMessageContaining("resizeDutyCycle");
    }
}

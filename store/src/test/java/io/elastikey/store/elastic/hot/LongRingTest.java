// LongRingTest -- first in, first out across growth and wrap-around; removeIf keeps the order of what stays.
package io.elastikey.store.elastic.hot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayDeque;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LongRingTest {

    @Test
    void behavesLikeADequeUsedAsAQueueThroughWrapAroundAndGrowth() {
        LongRing ring = new LongRing(16);
        ArrayDeque<Long> model = new ArrayDeque<>();
        Random rnd = new Random(3);
        for (int step = 0; step < 100_000; step++) {
            int op = rnd.nextInt(10);
            if (op < 6) {
                long v = rnd.nextLong();
                ring.addLast(v);
                model.addLast(v);
            } else if (op < 9 && !model.isEmpty()) {
                assertThat(ring.peekFirst()).isEqualTo(model.peekFirst());
                assertThat(ring.pollFirst()).isEqualTo(model.pollFirst());
            } else if (op == 9 && step % 100 == 0) {
                ring.removeIf(v -> (v & 3) == 0);
                model.removeIf(v -> (v & 3) == 0);
            }
            assertThat(ring.size()).isEqualTo(model.size());
        }
        assertThat(ring.toArray()).containsExactly(model.stream().mapToLong(Long::longValue).toArray());
    }

    @Test
    void anEmptyRingHasNoFirstItem() {
        LongRing ring = new LongRing(0);
        ring.addLast(7);
        ring.pollFirst();
        ring.addLast(8);
        ring.clear();
        assertThat(ring.isEmpty()).isTrue();
        assertThat(ring.toArray()).isEmpty();
        assertThatThrownBy(ring::pollFirst).isInstanceOf(IllegalStateException.class);
    }
}

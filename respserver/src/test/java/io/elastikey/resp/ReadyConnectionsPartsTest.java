// ReadyConnectionsPartsTest -- how a loop turn's ready readers are cut into one task per read thread.
package io.elastikey.resp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** How one loop turn's readers are cut into read-worker tasks ({@link ReadyConnections#parts}). */
class ReadyConnectionsPartsTest {

    private static List<Integer> members(int n) {
        return IntStream.range(0, n).boxed().toList();
    }

    @Test
    void oneReadThreadTakesTheWholeGroupAsOneTask() {
        assertThat(ReadyConnections.parts(members(7), 1)).containsExactly(members(7));
    }

    @Test
    void aGroupSmallerThanThePoolIsOneTaskPerConnection() {
        assertThat(ReadyConnections.parts(members(3), 8)).containsExactly(List.of(0), List.of(1), List.of(2));
    }

    @Test
    void aLargerGroupIsCutIntoOneTaskPerThreadEvenlyAndInOrder() {
        for (int size = 1; size <= 40; size++) {
            for (int threads = 1; threads <= 9; threads++) {
                List<List<Integer>> parts = ReadyConnections.parts(members(size), threads);
                assertThat(parts).hasSize(Math.min(size, threads));
                List<Integer> joined = new ArrayList<>();
                parts.forEach(joined::addAll);
                assertThat(joined).as("%d in %d parts", size, threads).isEqualTo(members(size));
                int smallest = parts.stream().mapToInt(List::size).min().orElseThrow();
                int largest = parts.stream().mapToInt(List::size).max().orElseThrow();
                assertThat(smallest).isPositive();
                assertThat(largest - smallest).as("%d in %d parts", size, threads).isLessThanOrEqualTo(1);
            }
        }
    }
}

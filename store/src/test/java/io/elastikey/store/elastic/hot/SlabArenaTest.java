// SlabArenaTest -- size classes, block reuse and freeing of the memory tier's slab.
package io.elastikey.store.elastic.hot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SlabArenaTest {

    @Test
    void everyNeedGetsABlockAtLeastAsLargeWithLittleWaste() {
        int previous = 0;
        for (int need = 1; need <= 3_000_000; need += need < 5000 ? 1 : 997) {
            int size = SlabArena.blockSize(need);
            assertThat(size).as("need %d", need).isGreaterThanOrEqualTo(need).isGreaterThanOrEqualTo(previous);
            assertThat(size - need).as("waste for %d", need).isLessThanOrEqualTo(Math.max(63, need / 32));
            assertThat(size % 8).isZero();
            assertThat(SlabArena.blockSize(size)).as("a block size is its own class").isEqualTo(size);
            previous = size;
        }
    }

    @Test
    void aFreedBlockIsHandedOutAgainBeforeNewMemoryIsTaken() {
        long before = OffHeap.allocatedBytes();
        try (SlabArena arena = new SlabArena(64 * 1024)) {
            long a = arena.allocate(4136);
            long b = arena.allocate(4136);
            assertThat(EntryBlock.capacity(a)).isEqualTo(4224);
            assertThat(b).isNotEqualTo(a);
            long reserved = arena.reservedBytes();
            arena.free(a);
            assertThat(arena.allocate(4100)).as("same class, the freed block").isEqualTo(a);
            assertThat(arena.reservedBytes()).isEqualTo(reserved);
        }
        assertThat(OffHeap.allocatedBytes()).isEqualTo(before);
    }

    @Test
    void chunksGrowFromOneBlockToTheTarget() {
        try (SlabArena arena = new SlabArena(64 * 1024)) {
            Set<Long> blocks = new HashSet<>();
            for (int i = 0; i < 1000; i++) {
                assertThat(blocks.add(arena.allocate(1000))).isTrue();
                // never more than twice what is in use, plus one target chunk
                assertThat(arena.reservedBytes()).isLessThanOrEqualTo(2L * (i + 1) * 1024 + 64 * 1024);
            }
            assertThat(arena.reservedBytes()).isGreaterThanOrEqualTo(1000 * 1024);
        }
    }

    @Test
    void aBlockLargerThanTheTargetGetsAChunkOfItsOwn() {
        try (SlabArena arena = new SlabArena(4096)) {
            long big = arena.allocate(100_000);
            assertThat(EntryBlock.capacity(big)).isGreaterThanOrEqualTo(100_000);
            assertThat(arena.reservedBytes()).isEqualTo(EntryBlock.capacity(big));
        }
    }

    @Test
    void aClosedArenaRefusesToAllocate() {
        SlabArena arena = new SlabArena(4096);
        arena.allocate(100);
        arena.close();
        assertThat(arena.reservedBytes()).isZero();
        assertThatThrownBy(() -> arena.allocate(100)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void withoutLeaveToTouchNewMemoryOnlyFreeBlocksAndPreparedChunksAreHandedOut() {
        long before = OffHeap.allocatedBytes();
        try (SlabArena arena = new SlabArena(64 * 1024)) {
            assertThat(arena.allocate(4136, false)).as("a fresh arena, nothing prepared").isZero();
            assertThat(arena.reservedBytes()).isZero();

            long chunk = OffHeap.allocate(arena.chunkTarget());
            arena.addPrepared(chunk);
            assertThat(arena.preparedChunks()).isEqualTo(1);
            int perChunk = (int) (arena.chunkTarget() / 4224);
            for (int i = 0; i < perChunk; i++) {
                long block = arena.allocate(4136, false);
                assertThat(block).as("block %d", i).isBetween(chunk, chunk + arena.chunkTarget() - 4224);
            }
            assertThat(arena.preparedChunks()).isZero();
            assertThat(arena.allocate(4136, false)).as("the prepared chunk is used up").isZero();

            long fresh = arena.allocate(4136);
            assertThat(fresh).as("leave to touch new memory: a new chunk").isNotZero();
            arena.free(fresh);
            assertThat(arena.allocate(4136, false)).as("a freed block needs no new memory").isEqualTo(fresh);
            assertThat(arena.reservedBytes()).isBetween(arena.chunkTarget() + 4224, 2 * arena.chunkTarget());
        }
        assertThat(OffHeap.allocatedBytes()).as("the prepared chunk is freed with the arena").isEqualTo(before);
    }

    @Test
    void aClassCarvingUntouchedMemoryMovesToAPreparedChunkForAnAllocationThatMayNotTouch() {
        try (SlabArena arena = new SlabArena(64 * 1024)) {
            for (int i = 0; i < 40; i++) { // chunks double up to the target: the class now carves a fresh chunk
                arena.allocate(1000);
            }
            long chunk = OffHeap.allocate(arena.chunkTarget());
            arena.addPrepared(chunk);
            long block = arena.allocate(1000, false);
            assertThat(block).isBetween(chunk, chunk + arena.chunkTarget() - 1024);
            assertThat(arena.allocate(1000)).as("carving goes on in the prepared chunk").isEqualTo(block + 1024);
        }
    }
}

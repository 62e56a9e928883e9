// SlabArena -- the memory tier's entry blocks: native chunks carved into size classes, reused through free lists.
package io.elastikey.store.elastic.hot;

import java.util.Arrays;

/**
 * Where the memory tier's entries live. Native memory is taken in chunks; each chunk serves one size class and is cut
 * into blocks of exactly that size. A class's chunks grow from one block, doubling, up to the arena's chunk target
 * (the tier gives it a sixteenth of its budget, at most 4 MiB), so the unused end of a class's last chunk is at most
 * about what the class already holds, and at most the target. A freed block goes on its class's free list and is handed out again before a new
 * block is carved. Chunks go back to the OS only when the arena is closed: the tier is rebuilt on every resize (see
 * {@code Resizer}), which is when memory leaves the process.
 *
 * <h2>Why blocks are never unmapped while readers run</h2>
 * Lookups read blocks without a lock ({@link EntryBlock}): a reader may hold the address of a block that a writer
 * frees and reuses meanwhile. Since a chunk stays mapped, and a block stays a block of the same size for the arena's
 * life, such a reader reads only bytes inside some block; the block's stamp tells it that the bytes changed, and it
 * starts over. Nothing is freed to the OS until {@link #close()}, which the owner calls only once no reader can be
 * inside (the store's {@link ReaderEpochs}).
 *
 * <h2>Size classes</h2>
 * Multiples of 64 bytes up to 1 KiB; above, 32 classes per power of two (a class of up to 2^e bytes is
 * {@code 2^(e-1) + i * 2^(e-6)}). Waste is at most 64 bytes or about 3%: a 4 KiB value with a 16-byte key needs a
 * 4,136-byte block and gets 4,224.
 *
 * <h2>Prepared chunks</h2>
 * A block carved from a fresh chunk costs the thread that carves it the page faults of its first touch: the kernel
 * zeroes every page, and on a virtual machine whose host has taken the memory back, the host faults it in again. On
 * a lookup thread admitting a miss that is the lookup's latency. So a grow's background fill touches chunks ahead
 * ({@code OffHeapTable#prepareChunk}) and hands them over with {@link #addPrepared}; an allocation that may not touch
 * new memory ({@code mayTouchNew} false) takes a free block, carves a prepared chunk, or gets nothing.
 *
 * <p>Thread safety: none. The owning table serializes every call (readers never call the arena).
 */
final class SlabArena implements AutoCloseable {

    private static final int SMALL_LIMIT = 1024;
    private static final int SMALL_GRANULE = 64;
    private static final int CLASSES_PER_DOUBLING = 32;

    private final long chunkTarget;
    private SizeClass[] classes = new SizeClass[64];
    private long[] chunks = new long[16];
    private long[] chunkSizes = new long[16];
    private int chunkCount;
    private long[] prepared = new long[16];
    private int preparedCount;
    private long reservedBytes;
    private boolean closed;

    /** An arena whose chunks are about {@code chunkTarget} bytes (larger for blocks that do not fit one). */
    SlabArena(long chunkTarget) {
        this.chunkTarget = chunkTarget;
    }

    /** The block size an allocation of {@code need} bytes gets. */
    static int blockSize(int need) {
        if (need <= SMALL_LIMIT) {
            return Math.max(SMALL_GRANULE, (need + SMALL_GRANULE - 1) / SMALL_GRANULE * SMALL_GRANULE);
        }
        int e = 31 - Integer.numberOfLeadingZeros(need - 1); // 2^e < need <= 2^(e+1)
        int granule = 1 << (e + 1 - 6);
        return (int) Math.min(Integer.MAX_VALUE & ~7L, ((long) need + granule - 1) / granule * granule);
    }

    private static int classIndex(int need) {
        if (need <= SMALL_LIMIT) {
            return (Math.max(1, need) - 1) / SMALL_GRANULE;
        }
        int e = 31 - Integer.numberOfLeadingZeros(need - 1);
        int granule = 1 << (e + 1 - 6);
        int sub = (need - 1 - (1 << e)) / granule;
        return SMALL_LIMIT / SMALL_GRANULE + (e - 10) * CLASSES_PER_DOUBLING + sub;
    }

    /** The size of the chunks the arena takes, and of every {@link #addPrepared prepared} chunk. */
    long chunkTarget() {
        return chunkTarget;
    }

    /** A block of at least {@code need} bytes, header initialised ({@link EntryBlock#init}). */
    long allocate(int need) {
        return allocate(need, true);
    }

    /**
     * As {@link #allocate(int)}; with {@code mayTouchNew} false only from memory already touched (a free block or a
     * prepared chunk), else 0.
     */
    long allocate(int need, boolean mayTouchNew) {
        if (closed) {
            throw new IllegalStateException("arena closed");
        }
        int index = classIndex(need);
        if (index >= classes.length) {
            classes = Arrays.copyOf(classes, Math.max(index + 1, classes.length * 2));
        }
        SizeClass c = classes[index];
        if (c == null) {
            c = new SizeClass(blockSize(need));
            classes[index] = c;
        }
        return c.allocate(mayTouchNew);
    }

    /** Takes a chunk of {@link #chunkTarget} bytes from {@link OffHeap#allocate}, every page of it already touched. */
    void addPrepared(long address) {
        register(address, chunkTarget);
        if (preparedCount == prepared.length) {
            prepared = Arrays.copyOf(prepared, preparedCount * 2);
        }
        prepared[preparedCount++] = address;
    }

    /** Prepared chunks no class has started carving yet. */
    int preparedChunks() {
        return preparedCount;
    }

    /** Returns a block to its class. The block's stamp is left alone: readers still holding it compare stamps. */
    void free(long block) {
        int size = EntryBlock.capacity(block);
        classes[classIndex(size)].push(block);
    }

    /** Native bytes held: every chunk, carved or not, used or free. */
    long reservedBytes() {
        return reservedBytes;
    }

    private long newChunk(long bytes) {
        long address = OffHeap.allocate(bytes);
        register(address, bytes);
        return address;
    }

    private void register(long address, long bytes) {
        if (chunkCount == chunks.length) {
            chunks = Arrays.copyOf(chunks, chunkCount * 2);
            chunkSizes = Arrays.copyOf(chunkSizes, chunkCount * 2);
        }
        chunks[chunkCount] = address;
        chunkSizes[chunkCount++] = bytes;
        reservedBytes += bytes;
    }

    /** Frees every chunk. The caller guarantees no reader can still be inside a block. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (int i = 0; i < chunkCount; i++) {
            OffHeap.free(chunks[i], chunkSizes[i]);
        }
        chunkCount = 0;
        preparedCount = 0;
        reservedBytes = 0;
        classes = new SizeClass[0];
    }

    /** One size class: the chunk being carved and a stack of freed blocks. */
    private final class SizeClass {
        private final int blockSize;
        private long carveNext;
        private long carveEnd;
        private boolean carvingPrepared;
        private long carved;
        private long[] freeBlocks = new long[16];
        private int freeCount;

        SizeClass(int blockSize) {
            this.blockSize = blockSize;
        }

        long allocate(boolean mayTouchNew) {
            if (freeCount > 0) {
                return freeBlocks[--freeCount];
            }
            boolean roomHere = carveNext + blockSize <= carveEnd;
            if (!roomHere || !carvingPrepared && !mayTouchNew) {
                if (preparedCount > 0 && blockSize <= chunkTarget) {
                    // The rest of an unprepared chunk, if any, stays uncarved: slack of one chunk at most, once.
                    carve(prepared[--preparedCount], chunkTarget / blockSize * blockSize, true);
                } else if (!mayTouchNew) {
                    return 0;
                } else if (!roomHere) {
                    // Chunks double from one block up to the target: a class written rarely holds little slack.
                    long bytes = Math.max(blockSize, Math.min(carved, chunkTarget) / blockSize * blockSize);
                    carve(newChunk(bytes), bytes, false);
                }
            }
            long block = carveNext;
            carveNext += blockSize;
            EntryBlock.init(block, blockSize);
            return block;
        }

        private void carve(long chunk, long bytes, boolean prepared) {
            carved += bytes;
            carveNext = chunk;
            carveEnd = chunk + bytes;
            carvingPrepared = prepared;
        }

        void push(long block) {
            if (freeCount == freeBlocks.length) {
                freeBlocks = Arrays.copyOf(freeBlocks, freeCount * 2);
            }
            freeBlocks[freeCount++] = block;
        }
    }
}

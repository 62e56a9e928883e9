// OffHeap -- native memory the memory tier allocates and frees itself, counted, and the raw accesses to it.
package io.elastikey.store.elastic.hot;

import java.lang.reflect.Field;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;
import sun.misc.Unsafe;

/**
 * The one place that touches {@code sun.misc.Unsafe} (module {@code jdk.unsupported}, readable without flags on
 * Java 17+). Every block comes from {@link #allocate} and goes back through {@link #free}; both keep a process-wide
 * count, so a test can check that closing a table returned every byte ({@link #allocatedBytes()}).
 *
 * <p>Java 17 has no stable foreign-memory API ({@code MemorySegment} is an incubator there), and a direct
 * {@code ByteBuffer} can be freed only by the garbage collector: neither gives the explicit free a resizable tier
 * needs. Unsafe does, and its copies compile to the same {@code memcpy} the JDK's own buffers use.
 */
public final class OffHeap {

    static final Unsafe U = unsafe();
    static final long BYTE_ARRAY_BASE = U.arrayBaseOffset(byte[].class);
    private static final long BUFFER_ADDRESS = addressFieldOffset();
    private static final AtomicLong ALLOCATED = new AtomicLong();

    private OffHeap() {
    }

    /** Native bytes currently allocated by every table of this process. */
    public static long allocatedBytes() {
        return ALLOCATED.get();
    }

    /** {@code bytes} of uninitialised native memory; the caller frees it with {@link #free} and the same size. */
    static long allocate(long bytes) {
        long address = U.allocateMemory(bytes);
        ALLOCATED.addAndGet(bytes);
        return address;
    }

    /** Bytes zeroed per {@code setMemory} call by {@link #allocateZeroed}. */
    static final long ZEROING_STEP = 256 << 10;

    /**
     * {@code bytes} of zeroed native memory. Zeroed in steps of {@value #ZEROING_STEP} bytes: {@code setMemory} runs in
     * the VM, where no safepoint can stop it, so a resize's slot array (32 MB at a million entries, every page
     * faulted in for the first time) in one call would hold up a garbage collection requested meanwhile, and with
     * it every lookup thread, for as long as the zeroing takes. (A precaution: no such wait was caught in the
     * safepoint logs of the runs in docs/benchmarks.md.)
     */
    static long allocateZeroed(long bytes) {
        return allocateZeroed(bytes, () -> { });
    }

    /**
     * As {@link #allocateZeroed(long)}, running {@code step} after each step (pacing, cancellation: a grow zeroes at
     * idle priority); if it throws, the memory is freed.
     */
    static long allocateZeroed(long bytes, Runnable step) {
        long address = allocate(bytes);
        try {
            for (long at = 0; at < bytes; at += ZEROING_STEP) {
                U.setMemory(address + at, Math.min(ZEROING_STEP, bytes - at), (byte) 0);
                step.run();
            }
        } catch (RuntimeException | Error e) {
            free(address, bytes);
            throw e;
        }
        return address;
    }

    static void free(long address, long bytes) {
        U.freeMemory(address);
        ALLOCATED.addAndGet(-bytes);
    }

    /**
     * The object {@code Unsafe} addresses the remaining bytes of {@code buffer} in: its array, or {@code null} for a
     * direct buffer (then {@link #offset} is a native address). A read-only heap buffer has no accessible array.
     */
    static Object base(ByteBuffer buffer) {
        return buffer.isDirect() ? null : buffer.array();
    }

    /** Where in {@link #base} the remaining bytes of {@code buffer} start. */
    static long offset(ByteBuffer buffer) {
        return buffer.isDirect() ? address(buffer) + buffer.position()
                : BYTE_ARRAY_BASE + buffer.arrayOffset() + buffer.position();
    }

    /** The native address of a direct buffer's first byte. */
    static long address(ByteBuffer direct) {
        return U.getLong(direct, BUFFER_ADDRESS);
    }

    private static Unsafe unsafe() {
        try {
            Field f = Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            return (Unsafe) f.get(null);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static long addressFieldOffset() {
        try {
            return U.objectFieldOffset(Buffer.class.getDeclaredField("address"));
        } catch (NoSuchFieldException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}

// KeyCacheSnapshot -- the parsed-key cache's packed keys, sealed to one file at a stop and read back whole at the next start.
package io.elastikey.keyserver.keys;

import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.store.elastic.hot.FixedEntryTable;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.util.Arrays;

/**
 * What the parsed-key cache's packed part ({@link PackedKeyTier}) held at a stop, for the next start to take in one
 * sequential read. Why: without it, a restart over a million keys loads them again one store read, unseal and parse
 * at a time, some 27 µs of CPU each: half a minute of both cores while the server is already serving, and a third of
 * the warm rate for the first minute (docs/benchmarks.md, "A restart that reads its cache back"). The packed keys are
 * what those steps produce, so they are saved as they are.
 *
 * <p><b>Trusted only while the store is unchanged.</b> The file carries the store's {@linkplain
 * io.elastikey.store.KeyValueStore#writeSequence write sequence} and key count at the stop; a start whose store
 * reports others (a {@code keys import}, {@code remove} or {@code generate} in between, a restored backup, a compaction)
 * ignores it and loads from the store. The key server writes no keys itself (the {@code keys} commands do, and an
 * ElasticStore admits one process at a time), so between a stop and the next start the sequence moves whenever a key
 * may have changed. A start deletes the file once it has read it, so a later start (one after a kill, say) never
 * trusts a snapshot older than the run before it. A store that keeps no write sequence (Redis) gets no snapshot.
 *
 * <p><b>Sealed.</b> The packed keys are private keys in the clear, so the file holds them sealed with AES-256-GCM
 * ({@link Sealer}) under a key derived from the KEK for this purpose alone, in chunks of up to 1 MiB. A chunk's
 * associated data is the file's header, the chunk's number and whether it is the last, so chunks cannot be
 * reordered, taken from another snapshot or cut off unnoticed. Written owner-only to a temporary file and renamed.
 *
 * <p>Layout: a header {@code "EKCS" | version (1) | write sequence (8) | key count (8)}, in the clear; then chunks,
 * each {@code last (1 byte, 0 or 1) | sealed length (4) | sealed}; a chunk's plaintext is entries, each {@code
 * identifier length (1) | identifier (hex, ASCII) | packed length (2) | packed key}: first every packed key under its
 * key ID, hottest first, then every other name the cache holds for them, each with the 32 bytes of its key's ID in
 * place of a packed key (which is always longer).
 */
public final class KeyCacheSnapshot {
    static final String PURPOSE = "parsed-key cache snapshot v1";
    private static final byte[] MAGIC = {'E', 'K', 'C', 'S'};
    private static final byte VERSION = 1;
    static final int HEADER_LENGTH = MAGIC.length + 1 + 8 + 8;
    /** Plaintext per chunk: large enough that sealing costs nothing per entry, small enough to hold twice. */
    static final int CHUNK = 1 << 20;

    /**
     * What a start took from a snapshot: {@code cached} entries, and why it stopped short of the whole file
     * ({@code shortOf}: no file, another store state, damage), or {@code null} when it read it all or filled the cache.
     */
    public record Loaded(long cached, String shortOf) {
        static final String NO_FILE = "no snapshot";

        static Loaded refused(String why) {
            return new Loaded(0, why);
        }

        /** Whether there was no snapshot to read at all (the first start, one after a kill). */
        public boolean noFile() {
            return NO_FILE.equals(shortOf);
        }
    }

    /**
     * Whether an entry of the snapshot could be taken: a key {@link #CACHED}, another name of a cached key {@link
     * #NAMED} (not counted as a key); {@link #FULL} ends the load.
     */
    enum Taken { CACHED, NAMED, SKIPPED, FULL }

    /** Where the entries of a snapshot go: the cache, which checks each one. */
    interface Sink {
        Taken take(byte[] identifier, byte[] packed);
    }

    private KeyCacheSnapshot() {
    }

    /**
     * Replaces {@code file} with the entries of {@code tier}, hottest first, stamped with the store's state. Returns
     * the entries written.
     */
    static long write(Path file, PackedKeyTier tier, FixedEntryTable names, Sealer sealer, long writeSequence,
                      long keyCount) throws IOException {
        return write(file, tier, names, sealer, writeSequence, keyCount, CHUNK);
    }

    /** {@link #write(Path, PackedKeyTier, FixedEntryTable, Sealer, long, long)} in chunks of at most {@code chunk}. */
    static long write(Path file, PackedKeyTier tier, FixedEntryTable names, Sealer sealer, long writeSequence,
                      long keyCount, int chunk) throws IOException {
        byte[] header = header(writeSequence, keyCount);
        Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
        Files.deleteIfExists(temporary);
        Files.createFile(temporary, Kek.ownerOnly(temporary));
        long[] written = {0};
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(
                Files.newOutputStream(temporary), 1 << 16))) {
            out.write(header);
            ChunkWriter chunks = new ChunkWriter(out, sealer, header, chunk);
            IOException[] failed = {null};
            tier.forEachHottest((keyId, packed) -> {
                try {
                    if (packed.length <= 0xffff) {
                        chunks.add(hexAscii(keyId), packed);
                        written[0]++;
                    }
                    return true;
                } catch (IOException e) {
                    failed[0] = e;
                    return false;
                } finally {
                    Arrays.fill(packed, (byte) 0);
                }
            }, true);
            if (failed[0] == null) {
                names.forEach((name, keyId) -> {
                    try {
                        if (failed[0] == null) {
                            chunks.add(hexAscii(name), keyId);
                        }
                    } catch (IOException e) {
                        failed[0] = e;
                    }
                });
            }
            if (failed[0] != null) {
                throw failed[0];
            }
            chunks.finish();
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(temporary);
            throw e;
        }
        Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return written[0];
    }

    /**
     * Reads {@code file} into {@code sink} when it was written for the store as it is now ({@code writeSequence} and
     * {@code keyCount}), then deletes it whatever it held. A missing file, another store state, another KEK or damage
     * is a refusal, with its reason; the entries of chunks that opened before a damaged or missing one stay cached
     * (each chunk is authenticated on its own, as a part of this file).
     */
    static Loaded read(Path file, Sealer sealer, long writeSequence, long keyCount, Sink sink) throws IOException {
        try (InputStream raw = Files.newInputStream(file)) {
            return read(new DataInputStream(new BufferedInputStream(raw, 1 << 16)), sealer, writeSequence, keyCount,
                    sink);
        } catch (NoSuchFileException e) {
            return Loaded.refused(Loaded.NO_FILE);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static Loaded read(DataInputStream in, Sealer sealer, long writeSequence, long keyCount, Sink sink)
            throws IOException {
        byte[] header = new byte[HEADER_LENGTH];
        try {
            in.readFully(header);
        } catch (EOFException e) {
            return Loaded.refused("the file is shorter than its header");
        }
        ByteBuffer h = ByteBuffer.wrap(header);
        byte[] magic = new byte[MAGIC.length];
        h.get(magic);
        if (!Arrays.equals(magic, MAGIC) || h.get() != VERSION) {
            return Loaded.refused("not a version " + VERSION + " key cache snapshot");
        }
        long savedSequence = h.getLong();
        long savedCount = h.getLong();
        if (savedSequence != writeSequence || savedCount != keyCount) {
            return Loaded.refused("the key store changed since it was written (write sequence " + savedSequence
                    + " and " + savedCount + " keys then, " + writeSequence + " and " + keyCount + " now)");
        }
        long loaded = 0;
        for (long index = 0; ; index++) {
            int flags;
            int length;
            try {
                flags = in.readUnsignedByte();
                length = in.readInt();
            } catch (EOFException e) {
                return new Loaded(loaded, "the file ends before its last chunk");
            }
            if ((flags & ~1) != 0 || length < Sealer.OVERHEAD || length > CHUNK + Sealer.OVERHEAD) {
                return new Loaded(loaded, "chunk " + index + " is malformed");
            }
            byte[] sealed = new byte[length];
            byte[] plaintext;
            try {
                in.readFully(sealed);
                plaintext = sealer.unseal(sealed, associatedData(header, index, flags));
            } catch (EOFException | GeneralSecurityException e) {
                return new Loaded(loaded, "chunk " + index + " does not open (another KEK, or damage)");
            }
            try {
                long[] cached = {0};
                boolean goOn = takeEntries(plaintext, sink, cached);
                loaded += cached[0];
                if (!goOn || flags == 1) {
                    return new Loaded(loaded, null);
                }
            } finally {
                Arrays.fill(plaintext, (byte) 0);
            }
        }
    }

    /** The entries of one chunk into {@code sink}, counted in {@code cached}; {@code false} once the sink is full. */
    private static boolean takeEntries(byte[] plaintext, Sink sink, long[] cached) {
        ByteBuffer in = ByteBuffer.wrap(plaintext);
        while (in.remaining() >= 3) {
            byte[] identifier = new byte[in.get() & 0xff];
            if (in.remaining() < identifier.length + 2) {
                break;
            }
            in.get(identifier);
            int length = in.getShort() & 0xffff;
            if (in.remaining() < length) {
                break;
            }
            byte[] packed = new byte[length];
            in.get(packed);
            Taken taken = sink.take(identifier, packed);
            Arrays.fill(packed, (byte) 0);
            if (taken == Taken.FULL) {
                return false;
            }
            if (taken == Taken.CACHED) {
                cached[0]++;
            }
        }
        return true;
    }

    private static byte[] hexAscii(byte[] bytes) {
        return KeyIds.hex(bytes).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] header(long writeSequence, long keyCount) {
        return ByteBuffer.allocate(HEADER_LENGTH).put(MAGIC).put(VERSION).putLong(writeSequence).putLong(keyCount)
                .array();
    }

    private static byte[] associatedData(byte[] header, long index, int flags) {
        return ByteBuffer.allocate(header.length + 9).put(header).putLong(index).put((byte) flags).array();
    }

    /** Fills a plaintext chunk with entries and writes it sealed when full; wipes the plaintext after each seal. */
    private static final class ChunkWriter {
        private final DataOutputStream out;
        private final Sealer sealer;
        private final byte[] header;
        /** Room for a chunk; an entry (at most some 64 KiB) always fits an empty one. */
        private final ByteBuffer plaintext = ByteBuffer.allocate(CHUNK);
        private final int limit;
        private long index;

        ChunkWriter(DataOutputStream out, Sealer sealer, byte[] header, int chunk) {
            this.out = out;
            this.sealer = sealer;
            this.header = header;
            this.limit = Math.min(chunk, CHUNK);
        }

        void add(byte[] identifier, byte[] packed) throws IOException {
            if (plaintext.position() + 1 + identifier.length + 2 + packed.length > limit && plaintext.position() > 0) {
                flush(0);
            }
            plaintext.put((byte) identifier.length).put(identifier).putShort((short) packed.length).put(packed);
        }

        void finish() throws IOException {
            flush(1);
            Arrays.fill(plaintext.array(), (byte) 0);
        }

        private void flush(int flags) throws IOException {
            byte[] sealed = sealer.seal(plaintext.array(), plaintext.position(),
                    associatedData(header, index++, flags));
            Arrays.fill(plaintext.array(), 0, plaintext.position(), (byte) 0);
            plaintext.clear();
            out.writeByte(flags);
            out.writeInt(sealed.length);
            out.write(sealed);
        }
    }
}

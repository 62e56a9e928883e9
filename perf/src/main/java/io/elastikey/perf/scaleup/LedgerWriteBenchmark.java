// LedgerWriteBenchmark -- how long scaleupd's crash-safe ledger write takes on a given file system.
//
// Run from the reactor root: the temp directory (disk here), then tmpfs:
//   ./elastikey bench LedgerWriteBenchmark -wi 2 -w 3s -i 3 -r 5s -p dir=,/dev/shm
package io.elastikey.perf.scaleup;

import io.elastikey.scaleup.agent.ledger.Ledger;
import io.elastikey.scaleup.agent.ledger.LedgerException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@link Ledger#write}, alone: the part of a grant-changing rescale that {@link RescaleRoundTripBenchmark}'s
 * {@code rescale-changed} case adds over {@code rescale-unchanged}. The write is the agent's own code: a temp file
 * renamed over the ledger, with ({@code power}) or without ({@code process}) an fsync of the file and the directory. Three clients' grants, the second one
 * alternating, as the agent writes after a change.
 *
 * <p>{@code overwriteAndFdatasync} is the floor any ledger kept durably on that disk would pay: the same bytes
 * written in place into an open file and flushed once ({@code force(false)}, fdatasync), no rename, no directory.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Threads(1)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 5)
public class LedgerWriteBenchmark {

    /** Where the ledger's directory is created; empty for {@code java.io.tmpdir}. */
    @Param("")
    String dir;

    /** The agent's {@code --ledger-sync}: {@code power} fsyncs around the rename, {@code process} does not. */
    @Param({"power", "process"})
    String sync;

    private Path directory;
    private Ledger ledger;
    private final Map<String, Long> grants = new TreeMap<>(Map.of("edge", 256L, "keyserver", 1024L, "store", 100L));
    private long writes;
    private ByteBuffer bytes;
    private FileChannel inPlace;

    @Setup(Level.Trial)
    public void open() throws IOException {
        Path parent = dir.isEmpty() ? Path.of(System.getProperty("java.io.tmpdir")) : Path.of(dir);
        directory = Files.createTempDirectory(parent, "ledger-write");
        ledger = new Ledger(directory.resolve("ledger.json"), Ledger.Sync.valueOf(sync.toUpperCase(Locale.ROOT)));
        ledger.write(grants);
        bytes = ByteBuffer.wrap(Files.readAllBytes(ledger.file()));
        inPlace = FileChannel.open(directory.resolve("in-place.json"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
        System.out.printf("%nledger %s (%s)%n", ledger.file(), Files.getFileStore(directory));
    }

    @TearDown(Level.Trial)
    public void delete() throws IOException {
        inPlace.close();
        Files.deleteIfExists(directory.resolve("in-place.json"));
        Files.deleteIfExists(ledger.file());
        Files.deleteIfExists(directory.resolve("ledger.json.tmp"));
        Files.deleteIfExists(directory);
    }

    @Benchmark
    public void overwriteAndFdatasync() throws IOException {
        bytes.put(bytes.limit() - 4, (byte) ('0' + (writes++ & 1))).rewind();
        while (bytes.hasRemaining()) {
            inPlace.write(bytes, bytes.position());
        }
        inPlace.force(false);
    }

    @Benchmark
    public void write() throws LedgerException {
        grants.put("keyserver", 1024L + (writes++ & 1));
        ledger.write(grants);
    }
}

// RescaleRoundTripBenchmark -- one rescale-API call, JNI (libscaleup) vs pure Java, against an in-process scaleupd.
//
// Run from the reactor root (builds first if needed):
//   ./elastikey bench RescaleRoundTripBenchmark -wi 2 -w 3s -i 3 -r 5s
// The ledger on tmpfs instead of the temp directory's disk:
//   ./elastikey bench RescaleRoundTripBenchmark -p ledgerDir=/dev/shm -p call=rescale-changed
package io.elastikey.perf.scaleup;

import io.elastikey.perf.LogLevels;
import io.elastikey.scaleup.ScaleUpClient;
import io.elastikey.scaleup.ScaleUpException;
import io.elastikey.scaleup.ScaleUpResponse;
import io.elastikey.scaleup.agent.AgentConfig;
import io.elastikey.scaleup.agent.ScaleUpAgent;
import io.elastikey.scaleup.agent.ledger.Ledger;
import io.elastikey.scaleup.jni.NativeScaleUpClient;
import io.elastikey.scaleup.socket.SocketScaleUpClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
 * The latency of one call of the rescale API, as the memory governor makes it: a new Unix-socket connection, one
 * request line, one answer line. The agent ({@link ScaleUpAgent}) runs in the benchmark's JVM with its ledger in a
 * fresh directory under {@code ledgerDir} (default {@code java.io.tmpdir}, which is on disk on the build machine),
 * and its loggers at WARN so no console write is on the path. Sample-time mode gives the percentiles.
 *
 * <p>{@code call} is what each invocation asks:
 * <ul>
 *   <li>{@code status}: the grant, no decision;
 *   <li>{@code rescale-unchanged}: a rescale to the grant the client already holds: a decision, no ledger write;
 *   <li>{@code rescale-changed}: alternately 100 and 101 MiB, so every call changes the grant and the agent writes
 *       its ledger before it answers (temp file and rename; with {@code ledgerSync=power} an fsync of each too).
 * </ul>
 * One thread calls; the agent's event loop and decision thread share the machine's cores with it.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Threads(1)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 5)
public class RescaleRoundTripBenchmark {

    static final long BASE_MB = 100;

    @Param({"native", "socket"})
    String client;

    @Param({"status", "rescale-unchanged", "rescale-changed"})
    String call;

    /** The agent's {@code --ledger-sync}: {@code process} (its default, no flush) or {@code power} (fsync). */
    @Param({"process", "power"})
    String ledgerSync;

    /** Where the agent's ledger directory is created; empty for {@code java.io.tmpdir}. */
    @Param("")
    String ledgerDir;

    private Path dir;
    private ScaleUpAgent agent;
    private ScaleUpClient c;
    private long calls;

    @Setup(Level.Trial)
    public void start() throws IOException {
        LogLevels.warnOnly();
        Path parent = ledgerDir.isEmpty() ? Path.of(System.getProperty("java.io.tmpdir")) : Path.of(ledgerDir);
        dir = Files.createTempDirectory(parent, "rescale-rt");
        agent = ScaleUpAgent.start(AgentConfig.builder().socketPath(dir.resolve("a.sock"))
                .ledgerSync(Ledger.Sync.valueOf(ledgerSync.toUpperCase(java.util.Locale.ROOT)))
                .ledgerFile(dir.resolve("ledger.json")).poolMb(4096).build());
        Duration timeout = Duration.ofSeconds(5);
        c = switch (client) {
            case "native" -> new NativeScaleUpClient(agent.socketPath(), "bench", timeout);
            case "socket" -> new SocketScaleUpClient(agent.socketPath(), "bench", timeout);
            default -> throw new IllegalArgumentException("client must be native or socket, was " + client);
        };
        if (!call.equals("status") && !call.equals("rescale-unchanged") && !call.equals("rescale-changed")) {
            throw new IllegalArgumentException("call must be status, rescale-unchanged or rescale-changed, was " + call);
        }
        c.rescale(BASE_MB, "warm-up");
        System.out.printf("%nagent ledger %s (%s)%n", agent.config().ledgerFile(), Files.getFileStore(dir));
    }

    @TearDown(Level.Trial)
    public void stop() throws IOException {
        c.close();
        agent.close();
        try (var files = Files.list(dir)) {
            for (Path p : files.toList()) {
                Files.deleteIfExists(p);
            }
        }
        Files.deleteIfExists(dir);
    }

    @Benchmark
    public ScaleUpResponse roundTrip() throws ScaleUpException {
        return switch (call) {
            case "status" -> c.status();
            case "rescale-unchanged" -> c.rescale(BASE_MB, "");
            default -> c.rescale(BASE_MB + (calls++ & 1), "");
        };
    }
}

// ChaosCommand -- `./elastikey bench chaos`: the soak's load through an edge with two key servers while things break.
//
//   ./elastikey bench chaos                          about 5 minutes: four faults, 20 s each, 30 s apart
//   ./elastikey bench chaos --outage 10s --settle 15s --out /tmp/chaos-short
package io.elastikey.perf.soak;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import io.elastikey.perf.LogLevels;
import io.elastikey.perf.handshake.HandshakeLoad;
import io.elastikey.perf.ski.OptionConverters.DurationConverter;
import io.elastikey.perf.skiscale.MachineFacts;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The soak's load (a new full handshake and a GET per connection, at 80 % of the peak) through an edge configured
 * with two key servers, while a script breaks things, one at a time, at fixed times:
 *
 * <ol>
 *   <li>SIGKILL key server A (ElasticStore), restart it after {@code --outage};
 *   <li>SIGSTOP key server B (Redis-backed), SIGCONT after {@code --outage};
 *   <li>fill the small tmpfs that holds key server A's store and an ElasticStore behind the RESP server
 *       ({@code store serve}) to the last byte, free it after {@code --outage};
 *   <li>SIGKILL the Redis under key server B, start it again (same port, same append-only file) after
 *       {@code --outage}.
 * </ol>
 *
 * Meanwhile two {@link AckedWriter}s put numbered 4 KiB values, one into the RESP server's ElasticStore (on the small
 * disk), one into key server B's Redis, remembering each acknowledged one. Per fault ({@link ChaosEvent}): failed
 * handshakes and their share of the fault's window (target below 0.1 % while one key server lives), recovery time;
 * for the disk and Redis faults, what the writer was told and when writes came back. After the load: every
 * acknowledged value read back, then the RESP server restarted on its data and every value read again (a full disk
 * must not have corrupted the store). Results as the soak's: results.json, results.md, timeline.csv, timeline.png.
 */
@Command(name = "chaos", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Open-loop load through an edge with two key servers (A on an ElasticStore, B on Redis) at 80%% "
                + "of its measured peak while, one after another: A is SIGKILLed and restarted, B is SIGSTOPped and "
                + "continued, the small tmpfs under A's store and a RESP ElasticStore is filled and freed, and B's "
                + "Redis is killed and restarted. Writers count acknowledged writes into the ElasticStore and Redis "
                + "and read them all back at the end.",
                "Needs root (mount -t tmpfs) for the disk fault; without it that fault is skipped and the report "
                        + "says so. Results go to --out as for bench soak."},
        footer = {"", "Examples:", "  ./elastikey bench chaos", "  ./elastikey bench chaos --outage 10s --settle 15s"})
public final class ChaosCommand implements Callable<Integer> {
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");
    /** Time allowed beyond each outage for the undoing (a key server's restart takes a JVM start). */
    private static final long RESTART_ALLOWANCE_S = 10;

    @Spec
    CommandSpec spec;

    @Mixin
    LoadOptions load = new LoadOptions();

    @Option(names = "--outage", paramLabel = "TIME", converter = DurationConverter.class, defaultValue = "20s",
            description = "How long each fault lasts (default: ${DEFAULT-VALUE}).")
    Duration outage;

    @Option(names = "--settle", paramLabel = "TIME", converter = DurationConverter.class, defaultValue = "30s",
            description = "Quiet load before the first fault and after each (default: ${DEFAULT-VALUE}).")
    Duration settle;

    @Option(names = "--disk-size", paramLabel = "SIZE", defaultValue = "64m",
            description = "The tmpfs under key server A's store and the RESP ElasticStore (default: ${DEFAULT-VALUE}).")
    String diskSize;

    @Option(names = "--write-rate", paramLabel = "N", defaultValue = "50",
            description = "Puts per second of each acknowledged-write checker (default: ${DEFAULT-VALUE}).")
    int writeRate;

    @Option(names = "--out", paramLabel = "DIR", description = "Where results go (default: ${TMPDIR:-/tmp}/"
            + "elastikey-bench/chaos-<date>-<time>).")
    Path outDir;

    private final PrintStream out = System.out;
    private final Map<String, AtomicReference<SuiteProcess>> roles = new LinkedHashMap<>();
    private final List<ChaosEvent> events = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        String problem = load.check();
        if (problem == null && (outage.toSeconds() < 1 || settle.toSeconds() < 5 || writeRate < 1)) {
            problem = "--outage must be at least 1s, --settle at least 5s, --write-rate at least 1";
        }
        if (problem != null) {
            throw new ParameterException(spec.commandLine(), problem);
        }
        Path dir = (outDir != null ? outDir : Path.of(System.getenv().getOrDefault("TMPDIR", "/tmp"),
                "elastikey-bench", "chaos-" + LocalDateTime.now().format(STAMP))).toAbsolutePath();
        Files.createDirectories(dir);
        LogLevels.warnOnly();
        Results results = new Results(dir);
        Map<String, Object> machine = MachineFacts.describe();
        List<String> args = spec.commandLine().getParseResult().originalArgs();
        String command = ("./elastikey bench chaos " + String.join(" ", args.subList(args.indexOf(spec.name()) + 1,
                args.size()))).strip();
        results.fact("command", command).fact("started", Instant.now().toString()).fact("machine", machine);
        out.printf("chaos: results in %s%n", dir);
        for (String role : List.of("keyserver-a", "keyserver-b", "edge", "origin", "store", "redis")) {
            roles.put(role, new AtomicReference<>());
        }
        SmallDisk disk = null;
        String diskProblem = null;
        try {
            disk = SmallDisk.mount(dir.resolve("small-disk"), diskSize);
            out.printf("setup: a %s tmpfs at %s for key server A's store and the RESP ElasticStore%n", diskSize,
                    disk.path());
        } catch (IOException e) {
            diskProblem = e.getMessage();
            out.println("setup: no small disk (" + diskProblem + "); the disk-full fault is skipped");
        }
        Thread hook = new Thread(this::stopAll, "chaos-stop-servers");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return run(dir, disk, diskProblem, results, machine, command);
        } finally {
            stopAll();
            if (disk != null) {
                disk.close();
            }
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // shutting down
            }
        }
    }

    private Integer run(Path dir, SmallDisk disk, String diskProblem, Results results, Map<String, Object> machine,
                        String command) throws Exception {
        Path onDisk = disk != null ? disk.path() : dir.resolve("data");
        Path keyServerA = onDisk.resolve("keyserver-a");
        Path storeData = onDisk.resolve("store");
        Path keyServerB = dir.resolve("data").resolve("keyserver-b");
        Path edgeData = dir.resolve("data").resolve("edge");
        SuiteLauncher launcher = new SuiteLauncher(load.elastikey, dir);
        int redisPort = SuiteLauncher.freePort();
        int respPort = SuiteLauncher.freePort();
        int portA = SuiteLauncher.freePort();
        int portB = SuiteLauncher.freePort();
        int adminA = SuiteLauncher.freePort();
        int adminB = SuiteLauncher.freePort();
        int originPort = SuiteLauncher.freePort();
        int edgePort = SuiteLauncher.freePort();
        String redisUri = "redis://127.0.0.1:" + redisPort;

        out.println("setup: Redis (append-only, fsync always), then one ECDSA P-256 key sealed into A's ElasticStore "
                + "and B's Redis");
        roles.get("redis").set(launcher.redis(dir.resolve("redis"), redisPort));
        Map<Path, String> stores = new LinkedHashMap<>();
        stores.put(keyServerA, null);
        stores.put(keyServerB, redisUri);
        SuiteData suite = SuiteData.prepare(stores, edgeData);
        out.println("setup: starting key servers A and B, the RESP ElasticStore, the sample origin and the edge");
        roles.get("keyserver-a").set(launcher.keyServer("keyserver-a", keyServerA, null, portA, adminA));
        roles.get("keyserver-b").set(launcher.keyServer("keyserver-b", keyServerB, redisUri, portB, adminB));
        roles.get("store").set(launcher.respStore(storeData, respPort, "16m", 65_536));
        roles.get("origin").set(launcher.origin(originPort));
        roles.get("edge").set(launcher.edge(edgeData, suite.pki(), edgePort, SuiteLauncher.freePort(),
                List.of(portA, portB), originPort));
        roles.forEach((role, p) -> out.printf("  %-12s pid %d%n", role, p.get().pid()));

        long period = outage.toSeconds() + settle.toSeconds() + RESTART_ALLOWANCE_S;
        long faults = 4;
        Duration loadTime = Duration.ofSeconds(settle.toSeconds() + faults * period);
        Map<String, Supplier<SuiteProcess>> sampled = new LinkedHashMap<>();
        roles.forEach((role, ref) -> sampled.put(role, ref::get));
        try (HandshakeLoad handshakes = HandshakeLoad.open(new InetSocketAddress("127.0.0.1", edgePort),
                suite.serverName(), suite.caFile(), load.requestPath(), load.timeoutMillis,
                Runtime.getRuntime().availableProcessors())) {
            out.println("load: " + handshakes.description());
            double[] peak = {Double.NaN};
            long rate = load.offeredRate(handshakes, out, peak);
            out.printf("chaos: %,d/s open loop for %s; a fault every %d s from second %d, each %s%n", rate,
                    LoadOptions.human(loadTime), period, settle.toSeconds(), LoadOptions.human(outage));
            Timeline timeline = new Timeline(List.copyOf(roles.keySet()), dir.resolve("timeline.csv"));
            Sampler sampler = new Sampler(handshakes, rate, sampled, timeline, out, load.progressEvery);
            AckedWriter storeWriter = new AckedWriter("store", "redis://127.0.0.1:" + respPort, writeRate,
                    sampler::currentSecond);
            AckedWriter redisWriter = new AckedWriter("redis", redisUri, writeRate, sampler::currentSecond);
            HandshakeLoad.Phase phase;
            Script script = new Script(launcher, sampler, disk, storeWriter, period, keyServerA, portA, adminA,
                    dir.resolve("redis"), redisPort, loadTime.toSeconds());
            // The writers first: their start (a Redis client's classes and connections in this JVM) would otherwise
            // take the first seconds' CPU from the load on this small machine and count as failed handshakes.
            storeWriter.start();
            redisWriter.start();
            Thread.sleep(5_000);
            try (sampler) {
                sampler.start();
                Thread scripted = new Thread(script, "chaos-script");
                scripted.start();
                phase = handshakes.openLoop(rate, loadTime);
                scripted.join(TimeUnit.MINUTES.toMillis(2));
                storeWriter.close();
                redisWriter.close();
            }
            if (script.failure != null) {
                out.println("chaos: the script failed: " + script.failure);
            }
            out.println("check: reading every acknowledged write back");
            long[] storeCheck = storeWriter.verify();
            long[] redisCheck = redisWriter.verify();
            out.println("check: restarting the RESP ElasticStore on its data, reading every write again");
            roles.get("store").get().close();
            roles.get("store").set(launcher.respStore(storeData, respPort, "16m", 65_536));
            long[] storeAfterRestart = storeWriter.verify();
            ChaosReport report = new ChaosReport(results, timeline, rate, peak[0], load, events, diskProblem,
                    script.failure);
            report.write(handshakes.description(), phase, machine, command, storeWriter, storeCheck,
                    storeAfterRestart, redisWriter, redisCheck, outage, settle);
            results.fact("finished", Instant.now().toString());
            results.write();
            timeline.plot(dir.resolve("timeline.png"), String.format("Chaos: edge with two key servers, %,d "
                    + "connections/s; faults at %s s%ncommit %s, %s cores", rate, String.join(", ",
                    events.stream().map(e -> e.start() + "-" + e.undone() + " (" + e.name() + ")").toList()),
                    machine.get("commit"), machine.get("cores")));
            out.println();
            out.print(results.markdown());
            out.printf("results: %s (results.md, results.json, timeline.csv, timeline.png, *.log)%n", dir);
            return report.allMet() ? 0 : 1;
        }
    }

    /** The faults, at fixed seconds of the load: one every {@code period} seconds from {@code --settle}. */
    private final class Script implements Runnable {
        private final SuiteLauncher launcher;
        private final Sampler sampler;
        private final SmallDisk disk;
        private final AckedWriter storeWriter;
        private final long period;
        private final Path keyServerA;
        private final int portA;
        private final int adminA;
        private final Path redisDir;
        private final int redisPort;
        private final long loadSeconds;
        volatile String failure;

        Script(SuiteLauncher launcher, Sampler sampler, SmallDisk disk, AckedWriter storeWriter, long period,
               Path keyServerA, int portA, int adminA, Path redisDir, int redisPort, long loadSeconds) {
            this.launcher = launcher;
            this.sampler = sampler;
            this.disk = disk;
            this.storeWriter = storeWriter;
            this.period = period;
            this.keyServerA = keyServerA;
            this.portA = portA;
            this.adminA = adminA;
            this.redisDir = redisDir;
            this.redisPort = redisPort;
            this.loadSeconds = loadSeconds;
        }

        @Override
        public void run() {
            try {
                List<Fault> faults = List.of(this::killA, this::stopB, this::fillDisk, this::killRedis);
                for (int i = 0; i < faults.size(); i++) {
                    long at = settle.toSeconds() + i * period;
                    awaitSecond(at);
                    long next = i + 1 < faults.size() ? settle.toSeconds() + (i + 1) * period : loadSeconds;
                    faults.get(i).inject(next);
                }
            } catch (Exception e) {
                failure = e.toString();
            }
        }

        private void awaitSecond(long second) throws InterruptedException {
            while (sampler.currentSecond() < second) {
                Thread.sleep(50);
            }
        }

        private void record(String name, String description, long start, long end, boolean oneLives,
                            Map<String, Object> notes) {
            long undone = sampler.currentSecond();
            events.add(new ChaosEvent(name, description, start, undone, end, oneLives, notes));
            out.printf("chaos: %s undone at second %d%n", name, undone);
        }

        private void killA(long end) throws Exception {
            long start = announce("SIGKILL key server A");
            SuiteProcess a = roles.get("keyserver-a").get();
            a.kill();
            roles.get("keyserver-a").set(null);
            Thread.sleep(outage.toMillis());
            long restartAt = System.nanoTime();
            roles.get("keyserver-a").set(launcher.keyServer("keyserver-a", keyServerA, null, portA, adminA));
            Map<String, Object> notes = new LinkedHashMap<>();
            notes.put("restart_to_ready_s", (System.nanoTime() - restartAt) / 1e9);
            record("kill-a", "SIGKILL key server A (ElasticStore); restarted after the outage", start, end, true,
                    notes);
        }

        private void stopB(long end) throws Exception {
            long start = announce("SIGSTOP key server B");
            SuiteProcess b = roles.get("keyserver-b").get();
            b.pause();
            Thread.sleep(outage.toMillis());
            b.resume();
            record("stop-b", "SIGSTOP key server B (Redis-backed); SIGCONT after the outage", start, end, true,
                    new LinkedHashMap<>());
        }

        private void fillDisk(long end) throws Exception {
            if (disk == null) {
                out.println("chaos: disk-full fault skipped (no small disk)");
                return;
            }
            long start = announce("fill the small disk under key server A and the RESP ElasticStore");
            Map<String, Object> notes = new LinkedHashMap<>();
            notes.put("free_bytes_before", disk.usable());
            notes.put("filler_bytes", disk.fill());
            notes.put("free_bytes_after_fill", disk.usable());
            Thread.sleep(outage.toMillis());
            notes.put("key_server_a_alive_when_freed", roles.get("keyserver-a").get().isAlive());
            notes.put("store_alive_when_freed", roles.get("store").get().isAlive());
            disk.free();
            long freed = sampler.currentSecond();
            notes.put("freed_s", freed);
            record("disk-full", "the " + disk.size() + " tmpfs under key server A's store and the RESP ElasticStore "
                    + "filled to the last byte, freed after the outage", start, end, true, notes);
        }

        private void killRedis(long end) throws Exception {
            long start = announce("SIGKILL Redis under key server B");
            roles.get("redis").get().kill();
            roles.get("redis").set(null);
            Thread.sleep(outage.toMillis());
            roles.get("redis").set(launcher.redis(redisDir, redisPort));
            record("redis-down", "SIGKILL the Redis under key server B; started again (same append-only file) after "
                    + "the outage", start, end, true, new LinkedHashMap<>());
        }

        private long announce(String what) {
            long second = sampler.currentSecond();
            out.printf("chaos: second %d: %s%n", second, what);
            return second;
        }
    }

    private interface Fault {
        void inject(long windowEnd) throws Exception;
    }

    private void stopAll() {
        List<String> order = List.of("edge", "origin", "keyserver-a", "keyserver-b", "store", "redis");
        for (String role : order) {
            AtomicReference<SuiteProcess> ref = roles.get(role);
            SuiteProcess p = ref == null ? null : ref.get();
            if (p != null) {
                try {
                    p.close();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new ChaosCommand()).execute(args));
    }
}

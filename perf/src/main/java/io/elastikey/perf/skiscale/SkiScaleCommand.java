// SkiScaleCommand -- `./elastikey bench ski-scale`: the key server's targets at the use case's scale, in one command.
//
//   ./elastikey bench ski-scale            1,000,000 ec256 + 10,000 rsa2048 keys, about 35 minutes once the keys exist
//   ./elastikey bench ski-scale --quick    100,000 + 1,000 keys, 20-second runs: a first look in a few minutes
package io.elastikey.perf.skiscale;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import io.elastikey.perf.LogLevels;
import io.elastikey.perf.ski.LoadReport;
import io.elastikey.perf.ski.OptionConverters.DurationConverter;
import io.elastikey.perf.ski.ProgressReporter;
import io.elastikey.perf.ski.SkiLoadGenerator;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Reproduces the key server's targets at the use case's scale: a million ECDSA P-256 keys and ten thousand RSA-2048
 * keys in one key server, loaded the way edges would load it.
 *
 * <ol>
 *   <li>The data set ({@link ScaleDataSet}) is made once with {@code ./elastikey keys} and kept.
 *   <li>The key server runs as its own process ({@link KeyServerProcess}), with a GC log; the time from its start to
 *       {@code /readyz} answering is recorded.
 *   <li>A short closed-loop warm-up compiles the server's hot paths (a fresh key server needs some 30 s of load
 *       before its figures settle, docs/benchmarks.md).
 *   <li>The matrix: ECDSA {@code SIGN} closed loop on the first 1,000 keys, on all keys uniformly and on all keys
 *       Zipf-distributed, over HTTP/2 and HTTP/1.1, with the ratio of each all-keys rate to the 1,000-key rate; the
 *       open loop at 21,000/s, uniform and Zipf, both HTTP versions; RSA-2048 decryption closed loop, then open loop
 *       at 70% of the rate it reached. After each run the server's RSS, cache metrics and GC pauses are sampled.
 *   <li>{@link ScaleReport} writes results.json, results.md and the percentile plots, after every run.
 * </ol>
 *
 * <p><b>Where the load generator runs.</b> In this JVM, one {@link SkiLoadGenerator} after another, rather than a
 * fresh {@code ./elastikey loadgen ski} process per run: a fresh JVM spends its first 20-30 s compiling the
 * client's TLS, HTTP/2 and JSON paths, which would be charged to every run's first seconds and make the 1,000-key
 * and the million-key runs differ by where the client's JIT happened to be, not by the server. One warm JVM
 * for the whole matrix keeps the client the same in every run; each run still has its own warm-up, for the
 * server's caches and the connections. A full GC between runs drops the previous run's key set. The generator shares
 * the machine with the key server: every figure is what the two reach together, and the output says so.
 */
@Command(name = "ski-scale", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"The key server's targets at the use case's scale: N ec256 keys (default 1,000,000) and "
                + "10,000 rsa2048 keys in a key server process, ECDSA SIGN closed loop (first 1,000 keys vs all keys, "
                + "uniform and Zipf) and open loop at 21,000/s, RSA-2048 decryption closed and open loop, over "
                + "HTTP/2 and HTTP/1.1.",
                "The keys are made once and kept in --data-dir; results (results.md, results.json, plots/*.png) go "
                        + "to --out. The load generator runs on the same machine as the key server."},
        footer = {"", "Examples:",
                "  ./elastikey bench ski-scale --quick",
                "  ./elastikey bench ski-scale --open-duration 10m --out /tmp/ski-scale-run1",
                "  ./elastikey bench ski-scale --runs closed --duration 60s --server-set keys.cache=200000"})
public final class SkiScaleCommand implements Callable<Integer> {
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");

    /** The per-second answers of the last run {@link #execute} ran (the restart's ramp-up is read from it). */
    private ProgressReporter lastTimeline;

    @Spec
    CommandSpec spec;

    @Option(names = "--quick", description = "100,000 ec256 and 1,000 rsa2048 keys, 20-second runs, 5 s warm-ups: "
            + "a first look in a few minutes. Options given explicitly still win.")
    boolean quick;

    @Option(names = "--keys", paramLabel = "N", description = "ec256 keys (default: 1,000,000; --quick: 100,000).")
    Long keys;

    @Option(names = "--rsa-keys", paramLabel = "N", description = "rsa2048 keys, each distinct (default: 10,000; "
            + "--quick: 1,000).")
    Long rsaKeys;

    @Option(names = "--small-keys", paramLabel = "N", defaultValue = "1000",
            description = "The small key set of the closed-loop comparison: the first N keys "
                    + "(default: ${DEFAULT-VALUE}).")
    int smallKeys;

    @Option(names = "--data-dir", paramLabel = "DIR", description = "Where the data set is made and kept "
            + "(default: ${TMPDIR:-/tmp}/elastikey-bench/ski-scale-<N>).")
    Path dataDir;

    @Option(names = "--regenerate", description = "Make the data set again even when it is complete.")
    boolean regenerate;

    @Option(names = "--out", paramLabel = "DIR", description = "Where results go (default: ${TMPDIR:-/tmp}/"
            + "elastikey-bench/ski-scale-results/<N>-<date>-<time>).")
    Path outDir;

    @Option(names = "--runs", split = ",", paramLabel = "GROUP",
            description = "Which groups to run: closed, open, rsa, restart (default: all four). restart stops the "
                    + "key server after the others and measures the new one from its first second.")
    List<String> runs = new ArrayList<>(List.of("closed", "open", "rsa", "restart"));

    @Option(names = "--restart-window", paramLabel = "TIME", converter = DurationConverter.class,
            description = "restart: the time from the new process's start by which it must serve at the warm rate; "
                    + "the last quarter of it is measured (default: 60s).")
    Duration restartWindow = Duration.ofSeconds(60);

    @Option(names = "--duration", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Measured time of each closed-loop run (default: 30s; --quick: 20s).")
    Duration duration;

    @Option(names = "--open-duration", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Measured time of each open-loop run (default: 5m; --quick: 20s).")
    Duration openDuration;

    @Option(names = "--warmup", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Unrecorded load before each run, at its own load (default: 10s; --quick: 5s).")
    Duration warmup;

    @Option(names = "--server-warmup", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Closed-loop load before the first run, for the server's JIT; 0: none "
                    + "(default: 30s; --quick: 10s).")
    Duration serverWarmup;

    @Option(names = "--rate", paramLabel = "N", defaultValue = "21000",
            description = "ECDSA open-loop rate per second (default: ${DEFAULT-VALUE}).")
    long rate;

    @Option(names = "--rsa-share", paramLabel = "F", defaultValue = "0.7",
            description = "RSA open-loop rate as a share of the RSA closed-loop rate (default: ${DEFAULT-VALUE}).")
    double rsaShare;

    @Option(names = "--zipf-exponent", paramLabel = "S", defaultValue = "1.1",
            description = "Exponent of the Zipf runs (default: ${DEFAULT-VALUE}).")
    double zipfExponent;

    @Option(names = "--h2-connections", paramLabel = "N", defaultValue = "2",
            description = "HTTP/2 connections (default: ${DEFAULT-VALUE}, as an edge server's keyservers.connections: "
                    + "one per server event loop on this machine; with one, a single loop on each side carries "
                    + "every request's TLS and framing).")
    int h2Connections;

    @Option(names = "--h2-concurrency", paramLabel = "N", defaultValue = "256",
            description = "HTTP/2 closed loop: requests in flight (default: ${DEFAULT-VALUE}).")
    int h2Concurrency;

    @Option(names = "--h1-connections", paramLabel = "N", defaultValue = "64",
            description = "HTTP/1.1 connections, one request in flight on each (default: ${DEFAULT-VALUE}).")
    int h1Connections;

    @Option(names = "--h1-concurrency", paramLabel = "N",
            description = "HTTP/1.1 closed loop: requests in flight (default: --h1-connections).")
    Integer h1Concurrency;

    @Option(names = "--rsa-http", paramLabel = "VERSION", defaultValue = "1.1",
            description = "HTTP version of the RSA runs: 1.1 or 2 (default: ${DEFAULT-VALUE}).")
    String rsaHttp;

    @Option(names = "--rsa-connections", paramLabel = "N", defaultValue = "8",
            description = "Connections of the RSA runs (default: ${DEFAULT-VALUE}).")
    int rsaConnections;

    @Option(names = "--rsa-concurrency", paramLabel = "N", defaultValue = "16",
            description = "RSA closed loop: requests in flight (default: ${DEFAULT-VALUE}).")
    int rsaConcurrency;

    @Option(names = "--verify-sample", paramLabel = "N", defaultValue = "1000",
            description = "Check every Nth answer with the public key (default: ${DEFAULT-VALUE}).")
    int verifySample;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "0",
            description = "The key server's SKI port on 127.0.0.1; 0: a free one (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--admin-port", paramLabel = "PORT", defaultValue = "0",
            description = "Its admin port (/readyz, /metrics); 0: a free one (default: ${DEFAULT-VALUE}).")
    int adminPort;

    @Option(names = "--server-set", paramLabel = "NAME=VALUE",
            description = "A key server setting, passed as --set (repeatable), e.g. keys.cache=200000.")
    List<String> serverSettings = new ArrayList<>();

    @Option(names = "--server-java-opts", paramLabel = "OPTIONS", defaultValue = "",
            description = "JVM options of the key server, e.g. \"-Xmx4g\" (its GC log is always on).")
    String serverJavaOpts;

    @Option(names = "--elastikey", paramLabel = "PATH",
            defaultValue = "${sys:elastikey.home:-${sys:user.dir}}/elastikey",
            description = "The launcher script that runs `keys` and `keyserver` (default: ${DEFAULT-VALUE}).")
    Path elastikey;

    private PrintStream out = System.out;

    public static void main(String[] args) {
        System.exit(new CommandLine(new SkiScaleCommand()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Settings settings = settings();
        validate(settings);
        LogLevels.warnOnly(); // the load generator's Netty and TLS lines would interleave with the progress
        Instant started = Instant.now();
        out.printf("ski-scale: %,d ec256 + %,d rsa2048 keys; data set in %s; results in %s%n", settings.keys,
                settings.rsaKeys, settings.dataDir, settings.outDir);
        out.printf("ski-scale: the load generator runs in this JVM on the same machine as the key server: they share "
                + "its %d cores, so every figure is what both reach together.%n",
                Runtime.getRuntime().availableProcessors());

        ScaleDataSet data = ScaleDataSet.ensure(elastikey, settings.dataDir, settings.keys, settings.rsaKeys,
                regenerate, out);
        Files.createDirectories(settings.outDir);
        ScaleReport report = new ScaleReport(settings.outDir, settings.smallKeys);
        describeSetup(report, settings, data, started);
        List<ScaleRun> plan = plan(settings, data);

        out.println("key server: starting ./elastikey keyserver on " + data.dataDirectory());
        try (KeyServerProcess server = KeyServerProcess.start(elastikey, data.dataDirectory(), data.expectedKeys(),
                port, adminPort, serverSettings, serverJavaOpts, settings.outDir, "keyserver")) {
            Thread stopper = stopOnExit(server); // Ctrl-C must not leave the server running
            try {
                Duration ready = server.awaitReady(Duration.ofMinutes(15));
                ServerSample atReady = server.sample();
                out.printf("key server: pid %d, ready %.2f s after its start (launcher script and JVM start "
                        + "included); RSS %s MiB%n", server.pid(), ready.toMillis() / 1000.0,
                        ServerSample.mib(atReady.rssKib()));
                Map<String, Object> serverFacts = new LinkedHashMap<>();
                serverFacts.put("pid", server.pid());
                serverFacts.put("start_to_ready_ms", ready.toMillis());
                serverFacts.put("settings", serverSettings);
                serverFacts.put("java_opts", serverJavaOpts);
                serverFacts.put("log", server.log().toString());
                serverFacts.put("gc_log", server.gcLog().toString());
                report.setup("key_server", serverFacts);
                report.headline("key server start to ready", String.format("%.2f s (pid %d; log %s, GC log %s)",
                        ready.toMillis() / 1000.0, server.pid(), server.log(), server.gcLog()));
                report.setup("key_server_at_ready", atReady);
                report.write();

                // The reload first: a JIT warm-up that shares the cores with it (1,562 answers/s in one run) warms
                // up little, and the matrix's first runs would compile what it did not.
                awaitReload(server);
                warmUpServer(server, settings, data);
                runMatrix(server, settings, data, plan, report, started);
                report.setup("key_server_at_end", server.sample());
            } finally {
                out.println("key server: stopping");
                server.close();
                removeHook(stopper);
            }
        }
        if (settings.groups.contains("restart")) {
            restartRun(settings, data, report);
        }
        report.finished(Instant.now().toString());
        report.write();
        report.plots();
        out.println();
        out.println(report.markdown().lines().takeWhile(line -> !line.startsWith("## The key server"))
                .reduce("", (a, b) -> a + b + "\n"));
        out.printf("results: %s (results.md, results.json, plots/, runs/<run>/loadgen.log and latency.hgrm); "
                + "took %s%n", settings.outDir, clock(Duration.between(started, Instant.now())));
        boolean allRan = report.outcomes().stream().allMatch(o -> o.report() != null && o.status() == 0);
        return allRan ? 0 : 1;
    }

    /** A shutdown hook that stops {@code server}; remove it with {@link #removeHook} once the server is closed. */
    private static Thread stopOnExit(KeyServerProcess server) {
        Thread stopper = new Thread(() -> {
            try {
                server.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "ski-scale-stop-server");
        Runtime.getRuntime().addShutdownHook(stopper);
        return stopper;
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // already shutting down
        }
    }

    // ---- the restart ----

    /**
     * A restarted key server with every key on disk: the first server has stopped (saving its hot-key file), a new
     * one starts on the same data, and closed-loop load on all keys (uniform, HTTP/2) begins the moment
     * {@code /readyz} says ready. The last quarter of {@code --restart-window} after the process start is measured
     * and compared with the warm server's all-keys rate; the answers per second from the first request on are kept
     * as the ramp-up.
     */
    private void restartRun(Settings s, ScaleDataSet data, ScaleReport report)
            throws IOException, InterruptedException {
        out.printf("%nrestart: a new key server on the same data; load from the moment it is ready%n");
        try (KeyServerProcess server = KeyServerProcess.start(elastikey, data.dataDirectory(), data.expectedKeys(),
                port, adminPort, serverSettings, serverJavaOpts, s.outDir, "keyserver-restart")) {
            Thread stopper = stopOnExit(server);
            try {
                Duration ready = server.awaitReady(Duration.ofMinutes(15));
                Duration measured = restartWindow.dividedBy(4);
                Duration warm = restartWindow.minus(measured).minus(ready);
                if (warm.isNegative()) {
                    warm = Duration.ZERO;
                }
                out.printf("restart: ready %.2f s after its start; measuring %s after %s of load%n",
                        ready.toMillis() / 1000.0, ScaleRun.human(measured), ScaleRun.human(warm));
                ScaleRun.Keys all = new ScaleRun.Keys(data.ecKeyList(), data.ecKeys(), null, "random", 0);
                ScaleRun run = new ScaleRun("ecdsa-h2-restart-all-uniform", ScaleRun.Group.RESTART,
                        "ECDSA P-256 SIGN", "SIGN", all, closed(s, "2"), measured, warm.truncatedTo(
                        ChronoUnit.MILLIS), Targets.ECDSA_RESTART, "ecdsa-h2-closed-all-uniform");
                RunOutcome outcome = execute(server, run, data, s.outDir.resolve("runs").resolve(run.name()), out,
                        10);
                RunOutcome warmRun = report.outcomes().stream()
                        .filter(o -> o.run().name().equals(run.baseline())).findFirst().orElse(null);
                outcome = withRatioTo(outcome, warmRun);
                report.add(outcome);
                describeRamp(report, server, ready, warmRun);
                report.write();
                out.println(summary(outcome));
            } finally {
                out.println("key server (restarted): stopping");
                server.close();
                removeHook(stopper);
            }
        }
    }

    /** The restart's answers per 5 seconds from the process start, into results.md and results.json. */
    private void describeRamp(ScaleReport report, KeyServerProcess server, Duration ready, RunOutcome warmRun) {
        if (lastTimeline == null) {
            return;
        }
        List<Long> perSecond = lastTimeline.completedPerSecond();
        double offset = (lastTimeline.startedNanos() - server.startedNanos()) / 1e9;
        Map<String, Object> ramp = new LinkedHashMap<>();
        ramp.put("start_to_ready_ms", ready.toMillis());
        ramp.put("first_second_starts_s_after_process_start", Math.round(offset * 100) / 100.0);
        ramp.put("answers_per_second", perSecond);
        ramp.put("warm_rate", warmRun == null ? null : Math.round(warmRun.rate()));
        report.setup("restart", ramp);
        StringBuilder steps = new StringBuilder();
        for (int i = 0; i + 5 <= perSecond.size(); i += 5) {
            long sum = 0;
            for (int j = i; j < i + 5; j++) {
                sum += perSecond.get(j);
            }
            steps.append(steps.length() > 0 ? ", " : "").append(String.format("%.0f-%.0f s: %,d/s", offset + i,
                    offset + i + 5, sum / 5));
        }
        report.headline("restart", String.format("ready %.2f s after the process start; then closed-loop load on all "
                + "keys (uniform, HTTP/2), answers per second by 5 s from the process start: %s%s", ready.toMillis()
                / 1000.0, steps, warmRun == null ? "" : String.format(" (warm server: %,.0f/s)", warmRun.rate())));
    }

    // ---- the matrix ----

    /** Every run, in order; the RSA open loop's rate is filled in once the RSA closed loop has measured it. */
    List<ScaleRun> plan(Settings s, ScaleDataSet data) {
        List<ScaleRun> plan = new ArrayList<>();
        if (s.groups.contains("closed")) {
            for (String http : List.of("2", "1.1")) {
                String prefix = "ecdsa-" + hName(http) + "-closed-";
                String small = prefix + smallName(s.smallKeys);
                plan.add(ecdsa(small, ScaleRun.Group.CLOSED, data, s, s.smallKeys, "random", closed(s, http),
                        s.duration, Targets.ECDSA_CLOSED_SMALL, null));
                plan.add(ecdsa(prefix + "all-uniform", ScaleRun.Group.CLOSED, data, s, null, "random",
                        closed(s, http), s.duration, Targets.ECDSA_CLOSED_ALL, small));
                plan.add(ecdsa(prefix + "all-zipf", ScaleRun.Group.CLOSED, data, s, null, "zipf", closed(s, http),
                        s.duration, Targets.ECDSA_CLOSED_ALL, small));
            }
        }
        if (s.groups.contains("open")) {
            for (String order : List.of("random", "zipf")) {
                for (String http : List.of("2", "1.1")) {
                    String name = "ecdsa-" + hName(http) + "-open-all-" + (order.equals("zipf") ? "zipf" : "uniform");
                    ScaleRun.Load load = new ScaleRun.Load(http, connections(s, http), false, 0, s.rate);
                    plan.add(ecdsa(name, ScaleRun.Group.OPEN, data, s, null, order, load, s.openDuration,
                            Targets.ECDSA_OPEN, null));
                }
            }
        }
        if (s.groups.contains("rsa")) {
            ScaleRun.Keys rsaKeys = new ScaleRun.Keys(data.rsaKeyList(), data.rsaKeys(), null, "random", 0);
            plan.add(new ScaleRun("rsa-" + hName(rsaHttp) + "-closed", ScaleRun.Group.RSA, "RSA-2048 RSA decrypt",
                    "RSA", rsaKeys, new ScaleRun.Load(rsaHttp, rsaConnections, true, rsaConcurrency, 0), s.duration,
                    s.warmup, Targets.RSA_CLOSED, null));
            plan.add(new ScaleRun("rsa-" + hName(rsaHttp) + "-open", ScaleRun.Group.RSA, "RSA-2048 RSA decrypt",
                    "RSA", rsaKeys, new ScaleRun.Load(rsaHttp, rsaConnections, false, 0, 0), s.openDuration,
                    s.warmup, Targets.RSA_OPEN, null));
        }
        return plan;
    }

    private ScaleRun ecdsa(String name, ScaleRun.Group group, ScaleDataSet data, Settings s, Integer limit,
                           String order, ScaleRun.Load load, Duration measured, Targets targets, String baseline) {
        long count = limit != null ? Math.min(limit, data.ecKeys()) : data.ecKeys();
        ScaleRun.Keys keys = new ScaleRun.Keys(data.ecKeyList(), count, limit, order, s.zipfExponent);
        return new ScaleRun(name, group, "ECDSA P-256 SIGN", "SIGN", keys, load, measured, s.warmup, targets,
                baseline);
    }

    private ScaleRun.Load closed(Settings s, String http) {
        return new ScaleRun.Load(http, connections(s, http), true,
                http.equals("2") ? h2Concurrency : s.h1Concurrency, 0);
    }

    private int connections(Settings s, String http) {
        return http.equals("2") ? h2Connections : h1Connections;
    }

    private void runMatrix(KeyServerProcess server, Settings s, ScaleDataSet data, List<ScaleRun> plan,
                           ScaleReport report, Instant started) throws IOException, InterruptedException {
        Map<String, RunOutcome> byName = new LinkedHashMap<>();
        for (int i = 0; i < plan.size(); i++) {
            ScaleRun run = plan.get(i);
            if (run.group() == ScaleRun.Group.RSA && !run.load().closedLoop()) {
                run = withMeasuredRsaRate(run, byName);
                if (run == null) {
                    out.println("rsa open loop: skipped, the RSA closed loop measured no rate");
                    continue;
                }
            }
            out.printf("%n[%d/%d] %s elapsed, about %s to go: %s%n    %s%n", i + 1, plan.size(),
                    clock(Duration.between(started, Instant.now())), clock(remaining(plan.subList(i, plan.size()))),
                    run.name(), run.describe());
            if (!server.isAlive()) {
                throw new IOException("the key server has exited; see " + server.log());
            }
            RunOutcome outcome = execute(server, run, data, s.outDir.resolve("runs").resolve(run.name()), out, 10);
            outcome = withRatioTo(outcome, run.baseline() != null ? byName.get(run.baseline()) : null);
            byName.put(run.name(), outcome);
            report.add(outcome);
            report.write();
            out.println(summary(outcome));
        }
    }

    /** {@code outcome} with its rate over {@code baseline}'s, when both measured something; else as it is. */
    private static RunOutcome withRatioTo(RunOutcome outcome, RunOutcome baseline) {
        if (baseline == null || baseline.rate() <= 0 || outcome.report() == null) {
            return outcome;
        }
        return outcome.withRatio(outcome.rate() / baseline.rate());
    }

    /** The RSA open loop at {@code --rsa-share} of what the closed loop reached, or null when it reached nothing. */
    private ScaleRun withMeasuredRsaRate(ScaleRun open, Map<String, RunOutcome> byName) {
        RunOutcome closed = byName.values().stream()
                .filter(o -> o.run().group() == ScaleRun.Group.RSA && o.run().load().closedLoop())
                .findFirst().orElse(null);
        if (closed == null || closed.rate() < 1) {
            return null;
        }
        long rsaRate = Math.max(1, Math.round(closed.rate() * rsaShare));
        ScaleRun.Load load = new ScaleRun.Load(open.load().http(), open.load().connections(), false, 0, rsaRate);
        return new ScaleRun(open.name(), open.group(), open.operation(), open.method(), open.keys(), load,
                open.duration(), open.warmup(), open.targets(), open.baseline());
    }

    /** Runs one load generator in this JVM; its output into {@code directory/loadgen.log} and, thinned, to console. */
    private RunOutcome execute(KeyServerProcess server, ScaleRun run, ScaleDataSet data, Path directory,
                               PrintStream console, int progressEvery) throws IOException, InterruptedException {
        Files.createDirectories(directory);
        String loadBefore = MachineFacts.loadAverage();
        Instant started = Instant.now();
        List<String> args = run.loadgenArgs("127.0.0.1:" + server.port(), data.pki(), verifySample, directory);
        int status;
        LoadReport result;
        try (RunLog log = new RunLog(directory.resolve("loadgen.log"), console, progressEvery);
             PrintStream stream = new PrintStream(log, true, StandardCharsets.UTF_8)) {
            stream.println("./elastikey loadgen ski " + String.join(" ", args));
            SkiLoadGenerator generator = new SkiLoadGenerator().printTo(stream);
            CommandLine command = new CommandLine(generator);
            command.setOut(new PrintWriter(stream, true));
            command.setErr(new PrintWriter(stream, true));
            status = command.execute(args.toArray(String[]::new));
            result = generator.report();
            lastTimeline = generator.timeline();
        }
        double wall = Duration.between(started, Instant.now()).toMillis() / 1000.0;
        System.gc(); // drop this run's key set and requests before the next run's
        ServerSample sample = server.sample();
        return new RunOutcome(run, status, result, null, sample, loadBefore, MachineFacts.loadAverage(), started, wall);
    }

    /**
     * Closed-loop load before the matrix: half the time ECDSA over HTTP/2, a quarter over HTTP/1.1, a quarter RSA
     * (when RSA runs), on the small key set; nothing is recorded. The server's JIT compiles its hot paths here
     * rather than during the first measured run.
     */
    private void warmUpServer(KeyServerProcess server, Settings s, ScaleDataSet data)
            throws IOException, InterruptedException {
        if (s.serverWarmup.isZero()) {
            return;
        }
        List<ScaleRun> warmups = new ArrayList<>();
        Duration half = s.serverWarmup.dividedBy(2);
        Duration quarter = s.serverWarmup.dividedBy(4);
        warmups.add(ecdsa("warmup-ecdsa-h2", ScaleRun.Group.CLOSED, data, s, s.smallKeys, "random",
                closed(s, "2"), half, Targets.ECDSA_CLOSED_SMALL, null));
        warmups.add(ecdsa("warmup-ecdsa-h1", ScaleRun.Group.CLOSED, data, s, s.smallKeys, "random",
                closed(s, "1.1"), quarter, Targets.ECDSA_CLOSED_SMALL, null));
        if (s.groups.contains("rsa")) {
            warmups.add(new ScaleRun("warmup-rsa", ScaleRun.Group.RSA, "RSA-2048 RSA decrypt", "RSA",
                    new ScaleRun.Keys(data.rsaKeyList(), data.rsaKeys(), null, "random", 0),
                    new ScaleRun.Load(rsaHttp, rsaConnections, true, rsaConcurrency, 0), quarter, Duration.ZERO,
                    Targets.RSA_CLOSED, null));
        }
        out.printf("%nserver warm-up: %s of closed-loop load (%s), not recorded%n", ScaleRun.human(s.serverWarmup),
                String.join(", ", warmups.stream().map(ScaleRun::name).toList()));
        for (ScaleRun warm : warmups) {
            ScaleRun run = new ScaleRun(warm.name(), warm.group(), warm.operation(), warm.method(), warm.keys(),
                    warm.load(), warm.duration(), Duration.ZERO, warm.targets(), null);
            RunOutcome outcome = execute(server, run, data, s.outDir.resolve("runs").resolve(run.name()), null, 1);
            out.printf("  %s: %,.0f answers/s over %s%n", run.name(), outcome.rate(), ScaleRun.human(run.duration()));
        }
    }

    /**
     * Waits, five minutes at most, until the key server has reloaded the keys of its hot-key file: the reload takes
     * CPU from the load while it runs, so a run measured during it measures a server still starting, not a warm one
     * (the restart group measures that on purpose). A server that exports no reload metrics is not waited for.
     */
    private void awaitReload(KeyServerProcess server) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        double previous = -1;
        while (true) {
            Map<String, Double> metrics = server.sample().metrics();
            Double loaded = metrics.get("elastikey_keys_reload_loaded");
            Double planned = metrics.get("elastikey_keys_reload_planned");
            if (loaded == null || planned == null || loaded >= planned) {
                return;
            }
            if (loaded == previous || System.nanoTime() - deadline > 0) { // stopped (a full cache) or too slow
                out.printf("hot-key reload: %,.0f of %,.0f keys, no longer moving or past 5 min; starting the runs%n",
                        loaded, planned);
                return;
            }
            out.printf("hot-key reload: %,.0f of %,.0f keys; waiting for it before the runs%n", loaded, planned);
            previous = loaded;
            Thread.sleep(5_000);
        }
    }

    private static String summary(RunOutcome o) {
        if (o.report() == null) {
            return String.format("  => %s: no result (status %d); see its loadgen.log", o.run().name(), o.status());
        }
        var h = o.latency();
        return String.format("  => %s: %,.0f/s  p50 %s  p99 %s  p99.9 %s  max %s ms  errors %,d%s%s  "
                        + "target (%s): %s%n     server: RSS %s MiB, key cache hit ratio %s, GC pauses %d "
                        + "(longest %.1f ms); load average %s -> %s",
                o.run().name(), o.rate(), ScaleReport.ms(h.getValueAtPercentile(50)),
                ScaleReport.ms(h.getValueAtPercentile(99)), ScaleReport.ms(h.getValueAtPercentile(99.9)),
                ScaleReport.ms(h.getMaxValue()), o.errors(),
                o.wrongAnswers() > 0 ? String.format(", %,d WRONG answers", o.wrongAnswers()) : "",
                o.ratio() != null ? String.format("  ratio vs %s %.3f", o.run().baseline(), o.ratio()) : "",
                o.run().targets().describe(), o.met() ? "met" : "NOT met", ServerSample.mib(o.server().rssKib()),
                o.server().metric("elastikey_keys_cache_hit_ratio"), o.server().gcPauses(),
                o.server().gcMaxPauseMs(), o.loadBefore(), o.loadAfter());
    }

    // ---- settings ----

    /** The options with --quick and the defaults applied. */
    record Settings(long keys, long rsaKeys, int smallKeys, Path dataDir, Path outDir, Duration duration,
                    Duration openDuration, Duration warmup, Duration serverWarmup, int h1Concurrency,
                    Set<String> groups, double zipfExponent, long rate) {
    }

    Settings settings() {
        long ec = keys != null ? keys : quick ? 100_000 : 1_000_000;
        long rsa = rsaKeys != null ? rsaKeys : quick ? 1_000 : 10_000;
        Path base = Path.of(System.getenv().getOrDefault("TMPDIR", "/tmp"), "elastikey-bench");
        Path data = dataDir != null ? dataDir
                : base.resolve("ski-scale-" + ec + (rsa == 10_000 ? "" : "-rsa" + rsa));
        Path results = outDir != null ? outDir
                : base.resolve("ski-scale-results").resolve(ec + "-" + LocalDateTime.now().format(STAMP));
        Duration closedTime = duration != null ? duration : Duration.ofSeconds(quick ? 20 : 30);
        Duration openTime = openDuration != null ? openDuration
                : quick ? Duration.ofSeconds(20) : Duration.ofMinutes(5);
        Duration runWarmup = warmup != null ? warmup : Duration.ofSeconds(quick ? 5 : 10);
        Duration jit = serverWarmup != null ? serverWarmup : Duration.ofSeconds(quick ? 10 : 30);
        Set<String> groups = new java.util.LinkedHashSet<>();
        runs.forEach(r -> groups.add(r.strip().toLowerCase(Locale.ROOT)));
        return new Settings(ec, rsa, (int) Math.min(smallKeys, ec), data.toAbsolutePath(), results.toAbsolutePath(),
                closedTime, openTime, runWarmup, jit, h1Concurrency != null ? h1Concurrency : h1Connections, groups,
                zipfExponent, rate);
    }

    void validate(Settings s) {
        require(s.keys >= 1 && s.rsaKeys >= 1, "--keys and --rsa-keys must be at least 1");
        require(smallKeys >= 1, "--small-keys must be at least 1");
        require(Set.of("closed", "open", "rsa", "restart").containsAll(s.groups) && !s.groups.isEmpty(),
                "--runs takes closed, open, rsa and restart, not " + s.groups);
        require(restartWindow.toSeconds() >= 8, "--restart-window must be at least 8 s");
        require(!s.duration.isNegative() && !s.duration.isZero() && !s.openDuration.isNegative()
                && !s.openDuration.isZero(), "--duration and --open-duration must be positive");
        require(!s.warmup.isNegative() && !s.serverWarmup.isNegative(), "warm-ups must not be negative");
        require(rate >= 1, "--rate must be at least 1");
        require(rsaShare > 0 && rsaShare <= 1, "--rsa-share must be in (0, 1]");
        require(zipfExponent > 0 && !Double.isInfinite(zipfExponent), "--zipf-exponent must be > 0");
        require(h2Connections >= 1 && h2Concurrency >= 1 && h1Connections >= 1 && s.h1Concurrency >= 1
                && rsaConnections >= 1 && rsaConcurrency >= 1, "connections and concurrency must be at least 1");
        require(rsaHttp.equals("1.1") || rsaHttp.equals("2"), "--rsa-http must be 1.1 or 2");
        require(verifySample >= 0, "--verify-sample must not be negative");
        require(port >= 0 && port <= 65535 && adminPort >= 0 && adminPort <= 65535, "ports must be 0..65535");
        serverSettings.forEach(setting -> require(setting.indexOf('=') > 0, "--server-set takes NAME=VALUE, not "
                + setting));
        require(Files.isExecutable(elastikey), elastikey + " is not the elastikey launcher script: run this "
                + "from the repository's root (./elastikey bench ski-scale) or give --elastikey");
    }

    private void require(boolean condition, String message) {
        if (!condition) {
            throw new ParameterException(spec.commandLine(), message);
        }
    }

    // ---- facts about the machine and the run ----

    private void describeSetup(ScaleReport report, Settings s, ScaleDataSet data, Instant started) {
        List<String> args = spec.commandLine().getParseResult().originalArgs();
        int own = args.indexOf(spec.name()); // the root's parse result holds "bench ski-scale" too
        String command = "./elastikey bench ski-scale " + String.join(" ", args.subList(own + 1, args.size()));
        report.setup("command", command);
        report.headline("command", "`" + command.strip() + "`");
        report.setup("started", started.toString());
        report.headline("started", started.toString());
        Map<String, Object> machine = MachineFacts.describe();
        report.setup("machine", machine);
        report.headline("machine", String.format("%s cores (%s), %s, %s, commit %s; load average %s at the start",
                machine.get("cores"), machine.get("cpu"), machine.get("memory"), machine.get("java"),
                machine.get("commit"), machine.get("load_average_at_start")));
        report.setup("load_generator", "in the orchestrating JVM (one warm JVM for the whole matrix), on the same "
                + "machine as the key server");
        report.headline("load generator", "`loadgen ski` in the benchmark's own JVM, on the same machine as the key "
                + "server: they share its cores, so every figure is what both reach together");
        Map<String, Object> dataSet = new LinkedHashMap<>();
        dataSet.put("directory", data.directory().toString());
        dataSet.put("ec256_keys", data.ecKeys());
        dataSet.put("rsa2048_keys", data.rsaKeys());
        dataSet.put("made_by_this_run", data.created());
        dataSet.put("made", data.createdAt());
        dataSet.put("step_seconds", new LinkedHashMap<>(data.stepSeconds()));
        report.setup("data_set", dataSet);
        StringBuilder steps = new StringBuilder();
        data.stepSeconds().forEach((step, seconds) -> steps.append(steps.length() > 0 ? ", " : "")
                .append(step.replace('_', ' ')).append(String.format(" %.1f s", seconds)));
        report.headline("data set", String.format("%,d ec256 + %,d rsa2048 keys in %s, made %s%s (%s)", data.ecKeys(),
                data.rsaKeys(), data.directory(), data.createdAt(), data.created() ? " by this run" : "", steps));
        report.headline("durations", String.format("closed loop %s, open loop %s, %s warm-up before each, %s server "
                        + "warm-up", ScaleRun.human(s.duration), ScaleRun.human(s.openDuration),
                ScaleRun.human(s.warmup), ScaleRun.human(s.serverWarmup)));
    }

    private static Duration remaining(List<ScaleRun> runs) {
        Duration total = Duration.ZERO;
        for (ScaleRun run : runs) {
            total = total.plus(run.duration()).plus(run.warmup()).plusSeconds(5);
        }
        return total;
    }

    static String clock(Duration d) {
        long s = d.toSeconds();
        return s >= 3600 ? String.format("%dh%02dm", s / 3600, s % 3600 / 60)
                : String.format("%dm%02ds", s / 60, s % 60);
    }

    private static String hName(String http) {
        return http.equals("2") ? "h2" : "h1";
    }

    private static String smallName(int n) {
        return n % 1000 == 0 ? n / 1000 + "k" : Integer.toString(n);
    }
}

// SoakCommand -- `./elastikey bench soak`: key server, edge and origin under 80 % of the edge's peak for ten minutes.
//
//   ./elastikey bench soak                      10 minutes after a 35-second peak measurement
//   ./elastikey bench soak --duration 1m --out /tmp/soak-short
package io.elastikey.perf.soak;

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
 * Does the suite hold steady under sustained load? A key server (ElasticStore), an edge and the sample origin run
 * as three processes as {@code ./elastikey demo} runs them ({@link SuiteData}, {@link SuiteLauncher}); this JVM is
 * the load generator ({@link HandshakeLoad}). It measures the edge's peak ({@link LoadOptions}), then offers 80 % of
 * it open loop for {@code --duration}, and once a second records the answers, failures, p50/p99 of that second and
 * each process's RSS and open fds ({@link Sampler}, {@link Timeline}). {@link SoakVerdicts} judges the result. Into
 * {@code --out}: results.json, results.md, timeline.csv, timeline.png and each server's log. The exit status is 0 when
 * every verdict is met, 1 when one is not, 2 on a usage error.
 */
@Command(name = "soak", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Key server, edge and sample origin as three processes, under open-loop load through the edge "
                + "at 80%% of its measured peak for --duration (default 10 minutes): each connection a full TLS 1.3 "
                + "handshake (one key-server signature) and one GET. Verdicts: no failed connection, RSS growth "
                + "under 5%% after the warm-up, no file-descriptor growth.",
                "Results (results.md, results.json, timeline.csv, timeline.png, the servers' logs) go to --out."},
        footer = {"", "Examples:", "  ./elastikey bench soak", "  ./elastikey bench soak --duration 2m --rate 400"})
public final class SoakCommand implements Callable<Integer> {
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");

    @Spec
    CommandSpec spec;

    @Mixin
    LoadOptions load = new LoadOptions();

    @Option(names = "--duration", paramLabel = "TIME", converter = DurationConverter.class, defaultValue = "10m",
            description = "How long the open-loop load runs, warm-up included (default: ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(names = "--warmup", paramLabel = "TIME", converter = DurationConverter.class,
            description = "The first part of the run whose memory is not judged (default: 2m, at most a fifth of "
                    + "--duration).")
    Duration warmup;

    @Option(names = "--out", paramLabel = "DIR", description = "Where results go (default: ${TMPDIR:-/tmp}/"
            + "elastikey-bench/soak-<date>-<time>).")
    Path outDir;

    private PrintStream out = System.out;

    SoakCommand printTo(PrintStream stream) {
        this.out = stream;
        return this;
    }

    @Override
    public Integer call() throws Exception {
        String problem = load.check();
        if (problem == null && duration.toSeconds() < 2) {
            problem = "--duration must be at least 2s";
        }
        if (problem != null) {
            throw new ParameterException(spec.commandLine(), problem);
        }
        long seconds = duration.toSeconds();
        long warm = warmup != null ? Math.min(warmup.toSeconds(), seconds - 1)
                : Math.min(120, Math.max(1, seconds / 5));
        Path dir = (outDir != null ? outDir : Path.of(System.getenv().getOrDefault("TMPDIR", "/tmp"),
                "elastikey-bench", "soak-" + LocalDateTime.now().format(STAMP))).toAbsolutePath();
        Files.createDirectories(dir);
        LogLevels.warnOnly();
        Instant started = Instant.now();
        Results results = new Results(dir);
        Map<String, Object> machine = MachineFacts.describe();
        String command = "./elastikey bench soak " + String.join(" ", ownArgs());
        results.fact("command", command.strip()).fact("started", started.toString()).fact("machine", machine);
        out.printf("soak: results in %s%n", dir);

        Path data = dir.resolve("data");
        Path keyServerData = data.resolve("keyserver");
        out.println("setup: development PKI, one ECDSA P-256 key sealed in the key server's ElasticStore");
        Map<Path, String> stores = new LinkedHashMap<>();
        stores.put(keyServerData, null); // null: the default ElasticStore in <data>/keys
        SuiteData suite = SuiteData.prepare(stores, data.resolve("edge"));
        SuiteLauncher launcher = new SuiteLauncher(load.elastikey, dir);
        int keyServerPort = SuiteLauncher.freePort();
        int originPort = SuiteLauncher.freePort();
        int edgePort = SuiteLauncher.freePort();
        List<SuiteProcess> processes = new ArrayList<>();
        Thread hook = new Thread(() -> stopAll(processes), "soak-stop-servers");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            out.println("setup: starting the key server, the sample origin and the edge (./elastikey ...)");
            SuiteProcess keyServer = launcher.keyServer("keyserver", keyServerData, null, keyServerPort,
                    SuiteLauncher.freePort());
            processes.add(keyServer);
            SuiteProcess origin = launcher.origin(originPort);
            processes.add(origin);
            SuiteProcess edge = launcher.edge(data.resolve("edge"), suite.pki(), edgePort, SuiteLauncher.freePort(),
                    List.of(keyServerPort), originPort);
            processes.add(edge);
            out.printf("setup: key server pid %d, edge pid %d (127.0.0.1:%d), origin pid %d%n", keyServer.pid(),
                    edge.pid(), edgePort, origin.pid());
            Map<String, Supplier<SuiteProcess>> roles = new LinkedHashMap<>();
            roles.put("keyserver", () -> keyServer);
            roles.put("edge", () -> edge);
            roles.put("origin", () -> origin);

            try (HandshakeLoad handshakes = HandshakeLoad.open(new InetSocketAddress("127.0.0.1", edgePort),
                    suite.serverName(), suite.caFile(), load.requestPath(), load.timeoutMillis,
                    Runtime.getRuntime().availableProcessors())) {
                out.println("load: " + handshakes.description());
                double[] peak = {Double.NaN};
                long rate = load.offeredRate(handshakes, out, peak);
                out.printf("soak: %,d/s open loop for %s; memory judged after a %d s warm-up; a line every %d s%n",
                        rate, LoadOptions.human(duration), warm, load.progressEvery);
                Timeline timeline = new Timeline(List.copyOf(roles.keySet()), dir.resolve("timeline.csv"));
                HandshakeLoad.Phase phase;
                try (Sampler sampler = new Sampler(handshakes, rate, roles, timeline, out, load.progressEvery)
                        .start()) {
                    phase = handshakes.openLoop(rate, duration);
                }
                SoakVerdicts verdicts = SoakVerdicts.judge(timeline, warm);
                report(results, handshakes, peak[0], rate, seconds, phase, verdicts, timeline, machine, command);
                results.fact("finished", Instant.now().toString());
                results.write();
                String title = String.format("Soak: key server + edge + origin, %,d connections/s (%s) for %s%n"
                        + "commit %s, %s cores", rate, Double.isNaN(peak[0]) ? "as given" : String.format(
                        "%.0f%% of a %,.0f/s peak", load.loadShare * 100, peak[0]), LoadOptions.human(duration),
                        machine.get("commit"), machine.get("cores"));
                timeline.plot(dir.resolve("timeline.png"), title);
                out.println();
                out.print(results.markdown());
                out.printf("results: %s (results.md, results.json, timeline.csv, timeline.png, *.log)%n", dir);
                return verdicts.allMet() ? 0 : 1;
            }
        } finally {
            stopAll(processes);
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // shutting down
            }
        }
    }

    private void report(Results results, HandshakeLoad handshakes, double peak, long rate, long seconds,
                        HandshakeLoad.Phase phase, SoakVerdicts v, Timeline timeline, Map<String, Object> machine,
                        String command) {
        Map<String, Object> loadFacts = new LinkedHashMap<>();
        loadFacts.put("unit", handshakes.description());
        loadFacts.put("peak_per_second", peak);
        loadFacts.put("peak_concurrency", load.peakConcurrency);
        loadFacts.put("load_share", load.rate != null ? null : load.loadShare);
        loadFacts.put("offered_per_second", rate);
        loadFacts.put("duration_s", seconds);
        loadFacts.put("warmup_s", v.warmupSeconds());
        loadFacts.put("judged_window_s", v.window());
        results.fact("load", loadFacts);
        Map<String, Object> verdicts = new LinkedHashMap<>();
        verdicts.put("answered", v.answered());
        verdicts.put("offered", rate * seconds);
        verdicts.put("failed", v.failed());
        verdicts.put("failures", v.failures());
        verdicts.put("failures_met", v.failuresMet());
        verdicts.put("rss_met", v.rssMet());
        verdicts.put("fds_met", v.fdsMet());
        Map<String, Object> processes = new LinkedHashMap<>();
        v.rss().forEach((role, g) -> {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("rss_mib_after_warmup", g.after() / 1024);
            p.put("rss_mib_at_end", g.end() / 1024);
            p.put("rss_growth", g.ratio());
            p.put("rss_met", g.met());
            SoakVerdicts.Growth f = v.fds().get(role);
            p.put("fds_max_after_warmup", f.after());
            p.put("fds_median_at_end", f.end());
            p.put("fds_met", f.met());
            processes.put(role, p);
        });
        verdicts.put("processes", processes);
        results.fact("verdicts", verdicts);
        results.fact("p99_ms_by_second", timeline.rows().stream().map(Timeline.Row::p99Ms).toList());

        results.line("# Soak: key server + edge + origin").line("")
                .line("- command: `" + command.strip() + "`")
                .line(String.format("- machine: %s cores (%s), %s, commit %s; load average %s at the start",
                        machine.get("cores"), machine.get("cpu"), machine.get("java"), machine.get("commit"),
                        machine.get("load_average_at_start")))
                .line("- unit of load: " + handshakes.description())
                .line(String.format("- load: %,d connections/s open loop for %d s (%s); warm-up %d s, memory judged "
                                + "on the medians of the %d s after it and of the last %d s", rate, seconds,
                        Double.isNaN(peak) ? "as given" : String.format("%.0f%% of the %,.0f/s closed-loop peak "
                                + "at %d connections", load.loadShare * 100, peak, load.peakConcurrency),
                        v.warmupSeconds(), v.window(), v.window()))
                .line(String.format("- answered %,d of %,d offered; failed %,d%s: **%s**", v.answered(),
                        rate * seconds, v.failed(), v.failures().isEmpty() ? "" : " " + v.failures(),
                        v.failuresMet() ? "met (0 failures)" : "NOT met"))
                .line(String.format("- RSS growth < 5%% after warm-up: **%s**; no fd growth: **%s**",
                        v.rssMet() ? "met" : "NOT met", v.fdsMet() ? "met" : "NOT met"))
                .line("").line("| process | RSS after warm-up (MiB) | RSS at end (MiB) | growth | fds after warm-up "
                        + "(max) | fds at end (median) |")
                .line("|---|---:|---:|---:|---:|---:|");
        v.rss().forEach((role, g) -> {
            SoakVerdicts.Growth f = v.fds().get(role);
            results.line(String.format("| %s | %.0f | %.0f | %+.1f%% %s | %.0f | %.0f %s |", role, g.after() / 1024,
                    g.end() / 1024, g.ratio() * 100, g.met() ? "" : "(over 5%)", f.after(), f.end(),
                    f.met() ? "" : "(grew)"));
        });
        List<Timeline.Row> rows = timeline.rows();
        double[] p99 = rows.stream().mapToDouble(Timeline.Row::p99Ms).filter(d -> !Double.isNaN(d)).sorted()
                .toArray();
        if (p99.length > 0) {
            results.line("").line(String.format("Per-second p99 of the handshake: median %.1f ms, worst %.1f ms; "
                    + "per-second answers: lowest %,d, highest %,d.", p99[p99.length / 2], p99[p99.length - 1],
                    rows.stream().mapToLong(Timeline.Row::answered).min().orElse(0),
                    rows.stream().mapToLong(Timeline.Row::answered).max().orElse(0)));
        }
    }

    private List<String> ownArgs() {
        List<String> args = spec.commandLine().getParseResult().originalArgs();
        int own = args.indexOf(spec.name());
        return args.subList(own + 1, args.size());
    }

    static void stopAll(List<SuiteProcess> processes) {
        for (int i = processes.size() - 1; i >= 0; i--) {
            try {
                processes.get(i).close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new SoakCommand()).execute(args));
    }
}

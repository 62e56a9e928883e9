// HandshakeLoadGenerator -- `./elastikey loadgen handshake`: new TLS connections per second, full or resumed.
//
// Example (issue 4: the edge with its key in the key server, then with --resume):
//   ./elastikey loadgen handshake --target 127.0.0.1:4433 --server-name ec.edge.test --ca data/pki/ca.pem \
//       --concurrency 32 --duration 20 --warmup 10 --result results/edge-full-tls13
package io.elastikey.perf.handshake;

import io.elastikey.perf.report.MeasurementOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.elastikey.perf.ski.LoadStats;
import io.elastikey.perf.ski.OptionConverters;
import io.elastikey.perf.ski.ProgressReporter;
import io.elastikey.protocol.config.ConfigException;
import io.elastikey.protocol.config.Values;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The TLS handshake load generator. Each connection is new: TCP connect, TLS handshake, optionally one HTTP/1.1 GET,
 * close. Without {@code --resume} every handshake is full (the client keeps no sessions); with it the client offers
 * an earlier connection's session or ticket, after priming its cache with unrecorded connections. Closed loop
 * ({@code --concurrency} connections under way) by default, open loop with {@code --rate}; see {@link HandshakeRun}.
 * A line a second shows progress; at the end it prints handshakes per second, errors by kind, how many handshakes the
 * client saw resumed and full, and the latency percentiles, and with {@code --result} saves {@code latency.hgrm} and
 * {@code summary.json}. The exit status is 1 when no handshake completed (or priming failed), 2 on a usage error.
 *
 * <p>The client runs BoringSSL like the edge and shares the machine with it in the benchmarks; its own CPU per
 * handshake (a client-side key exchange and a certificate check per full handshake) is part of what a run on one
 * machine measures.
 */
@Command(name = "handshake", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Opens new TLS connections as fast as asked and reports handshakes per second and latency, "
                + "full or resumed.")
public final class HandshakeLoadGenerator implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--target", required = true, paramLabel = "HOST:PORT", description = "The TLS server (the edge).")
    String target;

    @Option(names = "--server-name", paramLabel = "NAME",
            description = "Name for SNI and the certificate check (default: the target's host).")
    String serverName;

    @Option(names = "--server-names", paramLabel = "FILE",
            description = "Names, one per line: each connection offers one drawn at random (for SNI, the "
                    + "certificate check and Host), as the clients of an edge with many certificates do. Instead "
                    + "of --server-name.")
    Path serverNamesFile;

    @Option(names = "--ca", paramLabel = "FILE",
            description = "CA certificates (PEM) the server's chain must end at; or --insecure.")
    Path caBundle;

    @Option(names = "--insecure", description = "Trust any server certificate (benchmarking only).")
    boolean insecure;

    @Option(names = "--tls", defaultValue = "1.3", paramLabel = "1.3|1.2",
            description = "The one TLS version offered (default: ${DEFAULT-VALUE}).")
    String tlsVersion;

    @Option(names = "--cipher", paramLabel = "NAME",
            description = "With --tls 1.2: the one cipher suite offered, e.g. TLS_RSA_WITH_AES_128_GCM_SHA256 for "
                    + "RSA key exchange.")
    String cipher;

    @Option(names = "--resume", description = "Offer earlier connections' sessions: measures resumed handshakes "
            + "(under TLS 1.3 with --request, which brings the server's tickets).")
    boolean resume;

    @Option(names = "--concurrency", defaultValue = "32",
            description = "Closed loop: connections under way at once; also the connections that prime --resume "
                    + "under TLS 1.3 (default: ${DEFAULT-VALUE}).")
    int concurrency;

    @Option(names = "--rate", paramLabel = "R",
            description = "Open loop: new connections per second, latency from each one's intended start.")
    Long rate;

    @Mixin
    MeasurementOptions measurement;

    @Option(names = "--request", paramLabel = "PATH",
            description = "After each handshake, GET this path over HTTP/1.1 and read the answer (default: none).")
    String requestPath;

    @Option(names = "--timeout-ms", defaultValue = "10000",
            description = "Limit for the TCP connect, the handshake and the GET, each (default: ${DEFAULT-VALUE}).")
    int timeoutMillis;

    @Option(names = "--max-open", defaultValue = "10000",
            description = "Open loop: connections open at once before new ones fail as BACKLOG_FULL "
                    + "(default: ${DEFAULT-VALUE}).")
    int maxOpen;

    @Option(names = "--event-loop-threads", defaultValue = "0",
            description = "Client event loops; 0: one per CPU (default: ${DEFAULT-VALUE}).")
    int eventLoopThreads;

    private PrintStream out = System.out;
    private HandshakeReport report;
    private List<String> serverNames;

    public static void main(String[] args) {
        System.exit(new CommandLine(new HandshakeLoadGenerator()).execute(args));
    }

    /** The report of the last run, or null. */
    HandshakeReport report() {
        return report;
    }

    /** Where progress and the report go (tests capture it). */
    HandshakeLoadGenerator printTo(PrintStream stream) {
        this.out = stream;
        return this;
    }

    @Override
    public Integer call() throws Exception {
        validate();
        HandshakeTls tls;
        try {
            serverNames = serverNames();
            tls = HandshakeTls.build(protocol(), cipher, caBundle, resume, Math.max(256, 4 * concurrency));
        } catch (IOException | IllegalArgumentException e) {
            out.println(e.getMessage()); // an unreadable names file or CA bundle, or a cipher the provider lacks
            return 2;
        }
        HandshakeReport result = run(tls);
        return result == null || result.handshakes() == 0 ? 1 : 0;
    }

    /** Checks option values together; a bad one is a usage error (exit status 2). */
    void validate() {
        require(caBundle != null ^ insecure, "give either --ca FILE or --insecure");
        require(serverName == null || serverNamesFile == null, "give --server-name or --server-names, not both");
        require(tlsVersion.equals("1.3") || tlsVersion.equals("1.2"), "--tls must be 1.3 or 1.2");
        require(cipher == null || tlsVersion.equals("1.2"),
                "--cipher needs --tls 1.2: BoringSSL chooses the TLS 1.3 cipher suite itself");
        require(concurrency >= 1, "--concurrency must be at least 1");
        require(rate == null || rate >= 1, "--rate must be at least 1");
        measurement.validate();
        require(requestPath == null || requestPath.startsWith("/"), "--request must be a path starting with /");
        require(!resume || requestPath != null || !tlsVersion.equals("1.3"), "--resume with --tls 1.3 needs "
                + "--request PATH: a BoringSSL server (the edge) sends its TLS 1.3 session tickets only with its first "
                + "response, and a BoringSSL client ignores tickets after its own close_notify");
        require(timeoutMillis >= 1, "--timeout-ms must be at least 1");
        require(maxOpen >= 1, "--max-open must be at least 1");
        require(eventLoopThreads >= 0, "--event-loop-threads must not be negative");
        targetAddress();
    }

    /** Runs the load and prints (and perhaps saves) the report; null when priming failed. */
    HandshakeReport run(HandshakeTls tls) throws Exception {
        InetSocketAddress address = targetAddress();
        String name = serverNames.size() == 1 ? serverNames.get(0)
                : String.format("one of %,d from %s", serverNames.size(), serverNamesFile);
        int threads = eventLoopThreads > 0 ? eventLoopThreads : Runtime.getRuntime().availableProcessors();
        LoadStats stats = new LoadStats();
        try (HandshakeClient client = new HandshakeClient(tls, address, serverNames, requestPath, timeoutMillis,
                threads)) {
            HandshakeRun run = new HandshakeRun(client, stats);
            int primed = resume ? primingCount(tls) : 0;
            if (primed > 0) {
                Map<String, Long> failures = run.prime(primed, TimeUnit.MILLISECONDS.toNanos(3L * timeoutMillis));
                if (!failures.isEmpty()) {
                    out.println("priming the session cache with " + primed + " connection(s) to " + target
                            + " failed: " + failures);
                    return null;
                }
            }
            String description = describe(tls, client, name, primed);
            out.println(description);
            try (ProgressReporter progress = new ProgressReporter(stats, client::open, out,
                    run::measuredStartNanos).start()) {
                if (rate == null) {
                    run.closedLoop(concurrency, measurement.warmup().toNanos(), measurement.duration().toNanos());
                } else {
                    run.openLoop(rate, measurement.warmupCount(rate), measurement.measuredCount(rate), maxOpen);
                }
                run.awaitCompletion(TimeUnit.MILLISECONDS.toNanos(3L * timeoutMillis + 1000L));
            }
            long end = run.lastDoneNanos() > run.measuredStartNanos() ? run.lastDoneNanos()
                    : run.measuredStartNanos() + measurement.duration().toNanos();
            stats.interval(); // the last second, into the total
            report = new HandshakeReport(description, settings(tls, client, name, primed), stats.total(),
                    run.attempts(), stats.answered.sum(), run.resumed(), run.full(), run.unknown(),
                    stats.errors(), (end - run.measuredStartNanos()) / 1e9);
            report.print(out);
            measurement.saveIfAsked(report::save, out);
            return report;
        }
    }

    /** The names connections offer: the file's (blank lines and {@code #} comments left out), or the one name. */
    private List<String> serverNames() throws IOException {
        if (serverNamesFile == null) {
            return List.of(serverName != null ? serverName : targetAddress().getHostString());
        }
        List<String> names;
        try (Stream<String> lines = Files.lines(serverNamesFile, StandardCharsets.UTF_8)) {
            names = lines.map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        } catch (IOException | UncheckedIOException e) {
            throw new IOException("cannot read --server-names " + serverNamesFile + ": " + e.getMessage(), e);
        }
        if (names.isEmpty()) {
            throw new IOException("--server-names " + serverNamesFile + " names no server");
        }
        return names;
    }

    /**
     * One full handshake leaves a TLS 1.2 session every later connection can offer. A TLS 1.3 session is offered
     * once, so every connection of the first wave needs its own (BoringSSL servers send two tickets per connection,
     * and a primer that starts after another's tickets came resumes); each later connection collects the tickets
     * its successors offer.
     */
    private int primingCount(HandshakeTls tls) {
        return tls.protocol().equals(HandshakeTls.TLS_1_3) ? concurrency : 1;
    }

    /** {@code host:port}, {@code [v6]:port}. */
    InetSocketAddress targetAddress() {
        InetSocketAddress address;
        try {
            address = Values.address("--target", target);
        } catch (ConfigException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        require(address.getPort() >= 1 && !address.getAddress().isAnyLocalAddress(),
                "--target must be HOST:PORT with a host and a port, not " + target);
        return address;
    }

    private String protocol() {
        return tlsVersion.equals("1.3") ? HandshakeTls.TLS_1_3 : HandshakeTls.TLS_1_2;
    }

    private String describe(HandshakeTls tls, HandshakeClient client, String name, int primed) {
        String kind = resume ? "resumed" : "full";
        String load = rate == null ? "closed loop, " + concurrency + " at once"
                : String.format("open loop at %,d/s", rate);
        return String.format("TLS %s %s handshakes%s%s to %s (server name %s%s): %s, %s%s; "
                        + "client %s, %s, %d event loop(s)",
                tlsVersion, kind, cipher != null ? " with " + cipher : "",
                requestPath != null ? " and GET " + requestPath : "", target, name,
                insecure ? ", certificate not checked" : "", load, measurement.describe(),
                primed > 0 ? String.format(", %d unrecorded connection(s) first to prime the session cache", primed)
                        : "",
                tls.description(), client.transport(), eventLoopThreads > 0 ? eventLoopThreads
                        : Runtime.getRuntime().availableProcessors());
    }

    private Map<String, Object> settings(HandshakeTls tls, HandshakeClient client, String name, int primed) {
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("target", target);
        settings.put("server_name", name);
        settings.put("tls", tlsVersion);
        settings.put("cipher", cipher != null ? cipher : "");
        settings.put("resume", resume);
        settings.put("primed", primed);
        settings.put("mode", rate == null ? "closed-loop" : "open-loop");
        settings.put(rate == null ? "concurrency" : "rate", rate == null ? concurrency : rate);
        settings.put("request", requestPath != null ? requestPath : "");
        measurement.addTo(settings);
        settings.put("verify", insecure ? "none" : "ca");
        settings.put("tls_provider", tls.openSsl() ? "OPENSSL" : "JDK");
        settings.put("transport", client.transport());
        return settings;
    }

    private void require(boolean condition, String message) {
        if (!condition) {
            throw new ParameterException(spec.commandLine(), message);
        }
    }
}

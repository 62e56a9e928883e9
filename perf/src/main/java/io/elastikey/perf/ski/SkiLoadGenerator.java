// SkiLoadGenerator -- `./elastikey loadgen ski`: SKI load at a constant rate or concurrency, answers verified.
//
// Example (a dev PKI in ./pki, the keys' certificates in keys.pem):
//   ./elastikey loadgen ski --target localhost:8443 --pki pki --keys keys.pem --method ECDHE \
//       --http 2 --connections 4 --rate 30000 --duration 60 --warmup 10 --result results/ecdsa-h2-c4
package io.elastikey.perf.ski;

import io.elastikey.keyserver.crypto.CryptoProvider;
import io.elastikey.keyserver.crypto.ProviderChoice;
import io.elastikey.perf.report.MeasurementOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.elastikey.perf.ski.SkiWorkload.KeyOrder;
import io.elastikey.protocol.keyless.KeylessClient;
import io.elastikey.protocol.net.ClientEventLoops;
import io.elastikey.protocol.pki.DevPki;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.ski.SignatureScheme;
import io.elastikey.protocol.ski.KeyServerClient;
import io.elastikey.protocol.ski.SkiClient;
import io.elastikey.protocol.ski.SkiClientOptions;
import io.elastikey.protocol.ski.SkiHash;
import io.elastikey.protocol.ski.SkiHttpVersion;
import io.elastikey.protocol.ski.SkiMethod;
import io.elastikey.protocol.ski.SkiTls;
import io.elastikey.protocol.ski.SkiTransportException;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The SKI load generator. It reads the keys under test (PEM certificates or a key list, {@link SkiKeySet}), picks
 * each request's key in round-robin, uniform or Zipf order ({@link SkiWorkload}), connects an
 * {@link SkiClient} over mutual TLS, and then either sends at a constant rate (open loop, latency from each request's
 * intended send time, so corrected for coordinated omission) or keeps a fixed number in flight (closed loop); see
 * {@link SkiLoadRun}. A line a second shows progress; at the end it prints throughput, errors by kind and the latency
 * percentiles, and with {@code --result} saves the HdrHistogram and a JSON summary. Every {@code --verify-sample}-th
 * answer is checked against the public key ({@link AnswerVerifier}); the exit status is 1 when one was wrong or none
 * came back.
 */
@Command(name = "ski", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Loads a key server over mutual TLS, by SKI (loadgen ski) or the Keyless protocol "
                + "(loadgen keyless, requests pipelined on each connection), and reports throughput and latency "
                + "(open loop: from each request's intended send time).")
public final class SkiLoadGenerator implements Callable<Integer> {
    /** The protocol a run speaks. */
    public enum Protocol { SKI, KEYLESS }

    public SkiLoadGenerator() {
        this(Protocol.SKI);
    }

    /** A generator speaking {@code protocol} unless {@code --protocol} says otherwise ({@code loadgen keyless}). */
    public SkiLoadGenerator(Protocol protocol) {
        this.protocol = protocol;
    }

    @Option(names = "--protocol", converter = OptionConverters.ProtocolConverter.class,
            description = "ski or keyless (default: the command's: ski for loadgen ski, keyless for loadgen keyless).")
    Protocol protocol;

    @Spec
    CommandSpec spec;

    @Option(names = "--target", required = true, paramLabel = "HOST:PORT", description = "The key server.")
    String target;

    @Option(names = "--pki", paramLabel = "DIR",
            description = "Dev PKI directory with ca.pem, client.pem and client.key (or use --cert, --key, --ca).")
    Path pki;

    @Option(names = "--cert", paramLabel = "FILE", description = "Client certificate (PEM), with --key and --ca.")
    Path certificate;

    @Option(names = "--key", paramLabel = "FILE", description = "Client private key (PKCS#8 PEM).")
    Path privateKey;

    @Option(names = "--ca", paramLabel = "FILE", description = "CA certificates the server's must chain to (PEM).")
    Path caBundle;

    @Option(names = "--server-name", paramLabel = "NAME",
            description = "Name for SNI and the server certificate check (default: the target's host).")
    String serverName;

    @Option(names = "--keys", required = true, paramLabel = "FILE",
            description = "The keys to use: certificates (PEM), as `keys export-public` writes them, or a key "
                    + "list (`loadgen keylist`), much faster to read for many keys; told apart by content.")
    Path keysFile;

    @Option(names = "--key-limit", paramLabel = "N",
            description = "Use only the first N keys of the file that can serve --method (default: all).")
    Integer keyLimit;

    @Option(names = "--method", converter = OptionConverters.MethodConverter.class,
            description = "RSA, RSA-RAW, ECDHE, SIGN, or a signature of a hash value: RSA-PKCS1-DIGEST, "
                    + "RSA-PSS-DIGEST, ECDSA-DIGEST (default: ECDHE for SKI, ECDSA-DIGEST for Keyless; Keyless "
                    + "carries RSA-RAW, SIGN and the *-DIGEST methods).")
    SkiMethod method;

    @Option(names = "--hash", defaultValue = "SHA-256", converter = OptionConverters.HashConverter.class,
            description = "Hash for ECDHE and the *-DIGEST methods: SHA1, SHA-224, SHA-256, SHA-384, SHA-512, "
                    + "MD5-SHA1 (default: ${DEFAULT-VALUE}).")
    SkiHash hash;

    @Option(names = "--scheme", defaultValue = "auto", paramLabel = "SCHEME",
            description = "TLS 1.3 scheme for SIGN, e.g. ecdsa_secp256r1_sha256; auto: each key's own "
                    + "(default: ${DEFAULT-VALUE}).")
    String scheme;

    @Option(names = "--key-order", defaultValue = "round-robin", converter = OptionConverters.KeyOrderConverter.class,
            description = "round-robin, random (uniform) or zipf (popularity 1/rank^s, the popular keys scattered "
                    + "over the file) (default: ${DEFAULT-VALUE}).")
    KeyOrder keyOrder;

    @Option(names = "--key-name", converter = OptionConverters.KeyNameConverter.class,
            description = "The name sent for each key: certificate-sha1 (what SKI clients send) or keyless-ski "
                    + "(the Subject Key Identifier Keyless clients send) (default: the protocol's client's).")
    KeyName keyName;

    @Option(names = "--zipf-exponent", defaultValue = "1.1", paramLabel = "S",
            description = "With --key-order zipf: the exponent s, > 0; higher is more skewed "
                    + "(default: ${DEFAULT-VALUE}).")
    double zipfExponent;

    @Option(names = "--http", defaultValue = "2", converter = OptionConverters.HttpVersionConverter.class,
            description = "SKI: 1.1 or 2 (default: ${DEFAULT-VALUE}).")
    SkiHttpVersion http;

    @Option(names = "--connections", defaultValue = "1", description = "Connections (default: ${DEFAULT-VALUE}).")
    int connections;

    @Option(names = "--rate", defaultValue = "1000",
            description = "Open loop: requests per second (default: ${DEFAULT-VALUE}).")
    long rate;

    @Option(names = "--closed-loop", description = "Keep --concurrency requests in flight instead of a rate.")
    boolean closedLoop;

    @Option(names = "--concurrency", defaultValue = "16",
            description = "Closed loop: requests in flight (default: ${DEFAULT-VALUE}).")
    int concurrency;

    @Mixin
    MeasurementOptions measurement;

    @Option(names = "--verify-sample", defaultValue = "100", paramLabel = "N",
            description = "Check every Nth answer with the public key; 0: none (default: ${DEFAULT-VALUE}).")
    int verifyEvery;

    @Option(names = "--timeout-ms", defaultValue = "10000",
            description = "Request timeout in ms (default: ${DEFAULT-VALUE}).")
    int timeoutMillis;

    @Option(names = "--max-outstanding", defaultValue = "100000",
            description = "Requests in flight before new ones fail as BACKLOG_FULL (default: ${DEFAULT-VALUE}).")
    int maxOutstanding;

    @Option(names = "--event-loop-threads", defaultValue = "0",
            description = "Client event-loop threads; 0: one per connection up to the CPU count "
                    + "(default: ${DEFAULT-VALUE}).")
    int eventLoopThreads;

    @Option(names = "--slo-ms", defaultValue = "120",
            description = "Count answers slower than this (default: ${DEFAULT-VALUE}, SKI's budget).")
    int sloMillis;

    private PrintStream out = System.out;
    private LoadReport report;
    private ProgressReporter progress;

    public static void main(String[] args) {
        System.exit(new CommandLine(new SkiLoadGenerator()).execute(args));
    }

    /** The report of the last run, or null. */
    public LoadReport report() {
        return report;
    }

    /**
     * The last run's answers per second from its first request on, warm-up included, and when that first second
     * began ({@link ProgressReporter}); null before a run. The ski-scale restart run reads its ramp-up from it.
     */
    public ProgressReporter timeline() {
        return progress;
    }

    /** Where progress and the report go (tests and the ski-scale benchmark capture it). */
    public SkiLoadGenerator printTo(PrintStream stream) {
        this.out = stream;
        return this;
    }

    @Override
    public Integer call() throws Exception {
        validate();
        try {
            LoadReport result = run();
            return result.verifyFailures() > 0 || result.answered() == 0 ? 1 : 0;
        } catch (SkiTransportException e) {
            out.println("cannot reach " + target + ": " + e.getMessage()
                    + (e.getCause() != null ? " (" + e.getCause().getMessage() + ")" : ""));
            return 1;
        } catch (IOException | IllegalArgumentException e) {
            out.println(e.getMessage()); // an unreadable file, or keys that cannot serve the method
            return 2;
        }
    }

    /** Checks option values together; a bad one is a usage error (exit status 2). */
    void validate() {
        boolean files = certificate != null || privateKey != null || caBundle != null;
        require(pki != null ^ files, "give either --pki or all of --cert, --key and --ca");
        require(pki != null || certificate != null && privateKey != null && caBundle != null,
                "--cert, --key and --ca go together");
        require(closedLoop || rate >= 1, "--rate must be at least 1");
        require(!closedLoop || concurrency >= 1, "--concurrency must be at least 1");
        measurement.validate();
        require(connections >= 1, "--connections must be at least 1");
        require(verifyEvery >= 0, "--verify-sample must not be negative");
        require(timeoutMillis >= 1, "--timeout-ms must be at least 1");
        require(maxOutstanding >= 1, "--max-outstanding must be at least 1");
        require(eventLoopThreads >= 0, "--event-loop-threads must not be negative");
        require(sloMillis >= 1, "--slo-ms must be at least 1");
        require(keyLimit == null || keyLimit >= 1, "--key-limit must be at least 1");
        require(zipfExponent > 0 && !Double.isInfinite(zipfExponent), "--zipf-exponent must be > 0");
        targetAddress();
        schemeOrNull();
    }

    /** Runs the load and prints (and perhaps saves) the report. */
    LoadReport run() throws Exception {
        SignatureScheme signScheme = schemeOrNull();
        SkiMethod method = method();
        long loading = System.nanoTime();
        SkiKeySet keys = SkiKeySet.load(keysFile, method, signScheme, keyLimit != null ? keyLimit : Integer.MAX_VALUE,
                keyName != null ? keyName : KeyName.sentBy(protocol));
        out.printf("read %,d keys from %s in %.1f s%n", keys.size(), keysFile, (System.nanoTime() - loading) / 1e9);
        SkiWorkload workload = SkiWorkload.prepare(keys, method, hash, signScheme, keyOrder, zipfExponent,
                SkiWorkload.defaultVariants(keys.size()));
        if (workload.preparedAhead() > 0) {
            out.printf("prepared %,d RSA requests ahead%n", workload.preparedAhead());
        }
        // A million keys are hundreds of MB of young objects; collect them into the old generation now, so
        // the copying is not a pause inside the measured time, where it would read as server latency.
        System.gc();
        SkiHttpVersion alpn = protocol == Protocol.KEYLESS ? null : http;
        SslContext tls = pki != null ? SkiTls.clientContext(pki.resolve(DevPki.CLIENT_CERTIFICATE),
                pki.resolve(DevPki.CLIENT_KEY), pki.resolve(DevPki.CA_CERTIFICATE), alpn)
                : SkiTls.clientContext(certificate, privateKey, caBundle, alpn);
        if (verifyEvery > 0) {
            // The JDK's P-256 verify is Java arithmetic: about a core for a few hundred checks a second while it
            // compiles, taken from the key server on the same machine just as the measured time starts. ACCP's is
            // native (AccpLoader), a few µs of CPU a check.
            CryptoProvider.select(ProviderChoice.AUTO);
        }
        LoadStats stats = new LoadStats();
        // The generator's own loops, lent to the client, so the open-loop schedule runs on them (SkiLoadRun.Pacer).
        try (ClientEventLoops loops = new ClientEventLoops(null, eventLoopThreads(), true, "loadgen");
             KeyServerClient client = protocol == Protocol.KEYLESS
                ? KeylessClient.create(tls, targetAddress(), clientOptions(loops.group()))
                : SkiClient.create(tls, targetAddress(), clientOptions(loops.group()));
             SkiLoadRun run = new SkiLoadRun(client, loops.group(), workload, stats, verifyEvery)) {
            connect(client);
            out.println(describe(keys));
            progress = new ProgressReporter(stats, client::outstanding, out, run::measuredStartNanos);
            try (ProgressReporter reporter = progress.start()) {
                if (closedLoop) {
                    run.closedLoop(concurrency, measurement.warmup().toNanos(), measurement.duration().toNanos());
                } else {
                    run.openLoop(rate, measurement.warmupCount(rate), measurement.measuredCount(rate));
                }
                run.awaitCompletion(TimeUnit.MILLISECONDS.toNanos(timeoutMillis + 1000L));
            }
            long end = run.lastAnswerNanos() > run.measuredStartNanos() ? run.lastAnswerNanos()
                    : run.measuredStartNanos() + measurement.duration().toNanos();
            stats.interval(); // the last second, into the total
            report = new LoadReport(describe(keys), settings(keys), stats.total(), stats.sent.sum(),
                    stats.answered.sum(), stats.errors(), stats.verified.sum(), stats.verifyFailures.sum(),
                    stats.verifySkipped.sum(), (end - run.measuredStartNanos()) / 1e9, sloMillis);
            report.print(out);
            if (workload.preparedLate() > 0) {
                out.printf("prepared    %,d RSA requests when sent, on the sending thread (more keys than the "
                        + "%,d prepared ahead)%n", workload.preparedLate(), workload.preparedAhead());
            }
            measurement.saveIfAsked(report::save, out);
            return report;
        }
    }

    /** The method asked for, or the protocol's default. */
    SkiMethod method() {
        return method != null ? method : protocol == Protocol.KEYLESS ? SkiMethod.ECDSA_DIGEST : SkiMethod.ECDHE;
    }

    private void connect(KeyServerClient client) throws Exception {
        try {
            client.connect().get(timeoutMillis + 5000L, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    int eventLoopThreads() {
        return eventLoopThreads > 0 ? eventLoopThreads : Math.min(connections, Runtime.getRuntime().availableProcessors());
    }

    SkiClientOptions clientOptions(EventLoopGroup loops) {
        return SkiClientOptions.builder()
                .eventLoopGroup(loops)
                .httpVersion(http)
                .connections(connections)
                .requestTimeout(Duration.ofMillis(timeoutMillis))
                .maxOutstanding(maxOutstanding)
                .eventLoopThreads(eventLoopThreads())
                .serverName(serverName)
                .build();
    }

    /** {@code host:port}, {@code [v6]:port}. */
    InetSocketAddress targetAddress() {
        int colon = target.lastIndexOf(':');
        require(colon > 0 && colon < target.length() - 1, "--target must be HOST:PORT, not " + target);
        String host = target.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(target.substring(colon + 1));
        } catch (NumberFormatException e) {
            port = -1;
        }
        require(port >= 1 && port <= 65535, "--target port must be 1..65535 in " + target);
        return new InetSocketAddress(host, port);
    }

    /** The --scheme for SIGN, or null for each key's own. */
    SignatureScheme schemeOrNull() {
        if ("auto".equals(scheme)) {
            return null;
        }
        SignatureScheme named = SignatureScheme.fromWire(scheme);
        require(named != null, "--scheme " + scheme + " is no TLS 1.3 signature scheme");
        return named;
    }

    private String describe(SkiKeySet keys) {
        String what = switch (method()) {
            case ECDHE -> "ECDHE " + hash.wireName();
            case SIGN -> "SIGN " + scheme;
            default -> method().wireName();
        };
        String load = closedLoop ? "closed loop, " + concurrency + " in flight"
                : String.format("open loop at %,d/s", rate);
        String order = switch (keyOrder) {
            case ROUND_ROBIN -> "round-robin";
            case RANDOM -> "uniform";
            case ZIPF -> "zipf " + zipfExponent;
        };
        String transport = protocol == Protocol.KEYLESS ? "Keyless" : "HTTP/" + http.label();
        return String.format("%s %s over %,d key(s) %s (%s) to %s: %s, %d connection(s), %s, %s",
                protocol == Protocol.KEYLESS ? "Keyless" : "SKI", what, keys.size(),
                keys.types().stream().map(KeyType::cliName).toList(), order, target, transport, connections, load,
                measurement.describe());
    }

    private Map<String, Object> settings(SkiKeySet keys) {
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("target", target);
        settings.put("method()", method().wireName());
        settings.put("hash", method().usesHash() ? hash.wireName() : "");
        settings.put("scheme", method() == SkiMethod.SIGN ? scheme : "");
        settings.put("keys", keys.size());
        settings.put("key_order", keyOrder.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
        settings.put("key_name", (keyName != null ? keyName : KeyName.sentBy(protocol)).name()
                .toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
        if (keyOrder == KeyOrder.ZIPF) {
            settings.put("zipf_exponent", zipfExponent);
        }
        settings.put("protocol", protocol == Protocol.KEYLESS ? "keyless" : "ski");
        settings.put("http", protocol == Protocol.KEYLESS ? "" : http.label());
        settings.put("connections", connections);
        settings.put("mode", closedLoop ? "closed-loop" : "open-loop");
        settings.put(closedLoop ? "concurrency" : "rate", closedLoop ? concurrency : rate);
        measurement.addTo(settings);
        settings.put("verify_sample", verifyEvery);
        settings.put("tls_provider", SkiTls.defaultProvider().name());
        return settings;
    }

    private void require(boolean condition, String message) {
        if (!condition) {
            throw new ParameterException(spec.commandLine(), message);
        }
    }
}

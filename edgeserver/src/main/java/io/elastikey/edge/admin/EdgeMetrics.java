package io.elastikey.edge.admin;

import io.elastikey.edge.tls.KeyOperationListener;
import io.elastikey.protocol.net.ProtocolErrorKind;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * The edge server's Prometheus metrics. The handshake and key-operation meters are created up front, so the
 * per-handshake path is an array index and an increment.
 *
 * <ul>
 *   <li>{@code elastikey.edge.handshakes{type=full|resumed, protocol}}: completed handshakes. A full one cost one
 *       key-server operation; a resumed one (session ticket or cache) cost none.</li>
 *   <li>{@code elastikey.edge.handshake.failures{reason=key_server|timeout|protocol}}</li>
 *   <li>{@code elastikey.edge.key.operations{kind=sign|decrypt, result=ok|failed}} and the
 *       {@code elastikey.edge.key.operation.duration} histogram, retries included. Per key-server endpoint
 *       figures come from the pool and are registered through {@link #registry()}.</li>
 * </ul>
 */
public final class EdgeMetrics implements KeyOperationListener {
    /** Why a handshake failed, as few values as an operator can act on. */
    public enum FailureReason { KEY_SERVER, TIMEOUT, PROTOCOL }

    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2", "other"};

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    /** [0 = full, 1 = resumed][protocol index]. */
    private final Counter[][] handshakes = new Counter[2][PROTOCOLS.length];
    private final Timer[] handshakeTime = new Timer[2];
    private final Counter[] failures = new Counter[FailureReason.values().length];
    /** [kind][0 = ok, 1 = failed]. */
    private final Counter[][] keyOperations = new Counter[Kind.values().length][2];
    private final Timer[] keyOperationTime = new Timer[Kind.values().length];
    private final Counter refusedConnections;
    private final Counter[] protocolErrors = new Counter[ProtocolErrorKind.values().length];

    public EdgeMetrics() {
        String[] types = {"full", "resumed"};
        for (int t = 0; t < 2; t++) {
            for (int p = 0; p < PROTOCOLS.length; p++) {
                handshakes[t][p] = Counter.builder("elastikey.edge.handshakes")
                        .description("Completed TLS handshakes: full ones needed a key-server operation, resumed none")
                        .tag("type", types[t]).tag("protocol", PROTOCOLS[p]).register(registry);
            }
            handshakeTime[t] = histogram("elastikey.edge.handshake.duration",
                    "From accepting the connection to the end of its handshake").tag("type", types[t])
                    .register(registry);
        }
        for (FailureReason reason : FailureReason.values()) {
            failures[reason.ordinal()] = Counter.builder("elastikey.edge.handshake.failures")
                    .description("Failed handshakes: no key server answered, the client was too slow, or TLS errors")
                    .tag("reason", reason.name().toLowerCase(Locale.ROOT)).register(registry);
        }
        for (Kind kind : Kind.values()) {
            String name = kind.name().toLowerCase(Locale.ROOT);
            keyOperations[kind.ordinal()][0] = keyOperationCounter(name, "ok");
            keyOperations[kind.ordinal()][1] = keyOperationCounter(name, "failed");
            keyOperationTime[kind.ordinal()] = histogram("elastikey.edge.key.operation.duration",
                    "A handshake's private-key operation in the key server, retries included").tag("kind", name)
                    .register(registry);
        }
        refusedConnections = Counter.builder("elastikey.edge.connections.refused")
                .description("Connections closed at once because limits.connections was reached").register(registry);
        for (ProtocolErrorKind kind : ProtocolErrorKind.values()) {
            protocolErrors[kind.ordinal()] = Counter.builder("elastikey.edge.protocol.errors")
                    .description("Client protocol errors after the handshake: TLS garbage, broken HTTP/2 frames, "
                            + "unparsable HTTP/1.1, resets, requests not arrived within timeouts.request-read")
                    .tag("kind", kind.label()).register(registry);
        }
    }

    private Counter keyOperationCounter(String kind, String result) {
        return Counter.builder("elastikey.edge.key.operations")
                .description("Private-key operations handshakes asked the key servers for")
                .tag("kind", kind).tag("result", result).register(registry);
    }

    private static Timer.Builder histogram(String name, String description) {
        return Timer.builder(name).description(description).publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofNanos(50_000)).maximumExpectedValue(Duration.ofSeconds(10));
    }

    public void handshakeCompleted(boolean resumed, String protocol, long nanos) {
        int t = resumed ? 1 : 0;
        int p = "TLSv1.3".equals(protocol) ? 0 : "TLSv1.2".equals(protocol) ? 1 : 2;
        handshakes[t][p].increment();
        handshakeTime[t].record(nanos, TimeUnit.NANOSECONDS);
    }

    public void handshakeFailed(FailureReason reason) {
        failures[reason.ordinal()].increment();
    }

    public void connectionRefused() {
        refusedConnections.increment();
    }

    /** One protocol error of a client, by kind. */
    public void protocolError(ProtocolErrorKind kind) {
        protocolErrors[kind.ordinal()].increment();
    }

    @Override
    public void succeeded(Kind kind, long nanos) {
        keyOperations[kind.ordinal()][0].increment();
        keyOperationTime[kind.ordinal()].record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void failed(Kind kind, long nanos, Throwable cause) {
        keyOperations[kind.ordinal()][1].increment();
        keyOperationTime[kind.ordinal()].record(nanos, TimeUnit.NANOSECONDS);
    }

    /** Completed handshakes of one type so far, over every protocol: for the demo and tests. */
    public long handshakes(boolean resumed) {
        long total = 0;
        for (Counter c : handshakes[resumed ? 1 : 0]) {
            total += (long) c.count();
        }
        return total;
    }

    /** Registers a gauge read from {@code source} at scrape time. */
    public <T> void gauge(String name, String description, T source, ToDoubleFunction<T> value, String... tags) {
        Gauge.builder(name, source, value).description(description).tags(tags).strongReference(true).register(registry);
    }

    /** Registers a monotonically increasing count read from {@code source} at scrape time. */
    public <T> void counter(String name, String description, T source, ToDoubleFunction<T> value, String... tags) {
        FunctionCounter.builder(name, source, value).description(description).tags(tags).register(registry);
    }

    /** For meters other parts register with their own tags (per key-server endpoint). */
    public MeterRegistry registry() {
        return registry;
    }

    /** The Prometheus text exposition. */
    public String scrape() {
        return registry.scrape();
    }
}

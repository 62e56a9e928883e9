package io.elastikey.keyserver.admin;

import io.elastikey.protocol.net.ProtocolErrorKind;
import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiMethod;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToDoubleFunction;

/**
 * The key server's Prometheus metrics. Every per-request meter is created up front, one per
 * (method, result), so recording a request is an array lookup and an increment: no tag
 * lookup, no allocation on the request path.
 */
public final class KeyServerMetrics {
    private static final SkiMethod[] METHODS = SkiMethod.values();
    private static final SkiError[] ERRORS = SkiError.values();

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    /** [method][0 = ok, 1 + error ordinal]. */
    private final Counter[][] requests = new Counter[METHODS.length][1 + ERRORS.length];
    private final Timer[] latency = new Timer[METHODS.length];
    /** Requests that failed before their method was known (bad JSON, wrong path). */
    private final Counter undecoded;
    private final LongAdder refusedConnections = new LongAdder();
    private final LongAdder failedHandshakes = new LongAdder();
    private final Counter[] protocolErrors = new Counter[ProtocolErrorKind.values().length];

    public KeyServerMetrics() {
        for (SkiMethod method : METHODS) {
            requests[method.ordinal()][0] = requestCounter(method.wireName(), "ok");
            for (SkiError error : ERRORS) {
                requests[method.ordinal()][1 + error.ordinal()] = requestCounter(method.wireName(), error.text());
            }
            latency[method.ordinal()] = Timer.builder("elastikey.ski.request.duration")
                    .description("Time from a decoded SKI request to its answer, by method")
                    .tag("method", method.wireName())
                    .publishPercentileHistogram()
                    .minimumExpectedValue(Duration.ofNanos(50_000))
                    .maximumExpectedValue(Duration.ofSeconds(2))
                    .register(registry);
        }
        undecoded = requestCounter("unknown", SkiError.MALFORMED_REQUEST.text());
        FunctionCounter.builder("elastikey.connections.refused", refusedConnections, LongAdder::sum)
                .description("Connections closed at once because limits.connections was reached")
                .register(registry);
        FunctionCounter.builder("elastikey.tls.handshake.failures", failedHandshakes, LongAdder::sum)
                .description("TLS handshakes that failed: no, expired, revoked or untrusted client certificates, "
                        + "timeouts, protocol errors")
                .register(registry);
        for (ProtocolErrorKind kind : ProtocolErrorKind.values()) {
            protocolErrors[kind.ordinal()] = Counter.builder("elastikey.protocol.errors")
                    .description("Client protocol errors after the handshake: TLS garbage, broken HTTP/2 frames, "
                            + "unparsable HTTP/1.1, resets, requests not arrived within timeouts.request-read")
                    .tag("kind", kind.label())
                    .register(registry);
        }
    }

    private Counter requestCounter(String method, String result) {
        return Counter.builder("elastikey.ski.requests")
                .description("SKI requests answered, by method and result")
                .tag("method", method)
                .tag("result", result)
                .register(registry);
    }

    /** One answered request; {@code error} is {@code null} for success. */
    public void request(SkiMethod method, SkiError error, long nanos) {
        if (method == null) {
            undecoded.increment();
            return;
        }
        requests[method.ordinal()][error == null ? 0 : 1 + error.ordinal()].increment();
        latency[method.ordinal()].record(nanos, TimeUnit.NANOSECONDS);
    }

    public void connectionRefused() {
        refusedConnections.increment();
    }

    public void handshakeFailed() {
        failedHandshakes.increment();
    }

    /** One protocol error of a client, by kind. */
    public void protocolError(ProtocolErrorKind kind) {
        protocolErrors[kind.ordinal()].increment();
    }

    /** Registers a gauge read from {@code source} at scrape time. */
    public <T> void gauge(String name, String description, T source, ToDoubleFunction<T> value, String... tags) {
        Gauge.builder(name, source, value).description(description).tags(tags).strongReference(true).register(registry);
    }

    /** Registers a monotonically increasing count read from {@code source} at scrape time. */
    public <T> void counter(String name, String description, T source, ToDoubleFunction<T> value, String... tags) {
        FunctionCounter.builder(name, source, value).description(description).tags(tags).register(registry);
    }

    /** The Prometheus text exposition of every metric. */
    public String scrape() {
        return registry.scrape();
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }
}

package io.elastikey.keyserver.admin;

import io.elastikey.keyserver.audit.ClientProtocol;
import io.elastikey.protocol.net.ProtocolErrorKind;
import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiMethod;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToDoubleFunction;

/**
 * The key server's Prometheus metrics: per-request meters for each protocol ({@link RequestMeters}), connection and
 * handshake counts, and whatever gauges the parts register.
 */
public final class KeyServerMetrics {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final RequestMeters[] requests = new RequestMeters[ClientProtocol.values().length];
    private final LongAdder refusedConnections = new LongAdder();
    private final LongAdder failedHandshakes = new LongAdder();
    private final Counter[] protocolErrors = new Counter[ProtocolErrorKind.values().length];

    public KeyServerMetrics() {
        for (ClientProtocol protocol : ClientProtocol.values()) {
            requests[protocol.ordinal()] = new RequestMeters(protocol, registry);
        }
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

    /** One answered request; {@code method} is {@code null} when it could not be decoded, {@code error} for success. */
    public void request(ClientProtocol protocol, SkiMethod method, SkiError error, long nanos) {
        requests[protocol.ordinal()].record(method, error, nanos);
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

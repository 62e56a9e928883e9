// RequestMeters -- the per-request counters and latency histograms of one request protocol.
package io.elastikey.keyserver.admin;

import io.elastikey.keyserver.audit.ClientProtocol;
import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiMethod;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * {@code elastikey_<protocol>_requests_total{method,result}} and
 * {@code elastikey_<protocol>_request_duration_seconds{method}} for one protocol. Every meter is created up front,
 * one per (method, result), so recording a request is an array lookup and an increment: no tag lookup, no
 * allocation on the request path.
 */
final class RequestMeters {
    private static final SkiMethod[] METHODS = SkiMethod.values();
    private static final SkiError[] ERRORS = SkiError.values();

    /** [method][0 = ok, 1 + error ordinal]. */
    private final Counter[][] requests = new Counter[METHODS.length][1 + ERRORS.length];
    private final Timer[] latency = new Timer[METHODS.length];
    /** Requests that failed before their method was known (bad JSON, a bad frame). */
    private final Counter undecoded;

    RequestMeters(ClientProtocol protocol, MeterRegistry registry) {
        String prefix = "elastikey." + protocol.label();
        String name = protocol == ClientProtocol.SKI ? "SKI" : "Keyless";
        for (SkiMethod method : METHODS) {
            requests[method.ordinal()][0] = counter(registry, prefix, name, method.wireName(), "ok");
            for (SkiError error : ERRORS) {
                requests[method.ordinal()][1 + error.ordinal()] = counter(registry, prefix, name, method.wireName(),
                        error.text());
            }
            latency[method.ordinal()] = Timer.builder(prefix + ".request.duration")
                    .description("Time from a decoded " + name + " request to its answer, by method")
                    .tag("method", method.wireName())
                    .publishPercentileHistogram()
                    .minimumExpectedValue(Duration.ofNanos(50_000))
                    .maximumExpectedValue(Duration.ofSeconds(2))
                    .register(registry);
        }
        undecoded = counter(registry, prefix, name, "unknown", SkiError.MALFORMED_REQUEST.text());
    }

    private static Counter counter(MeterRegistry registry, String prefix, String name, String method, String result) {
        return Counter.builder(prefix + ".requests")
                .description(name + " requests answered, by method and result")
                .tag("method", method)
                .tag("result", result)
                .register(registry);
    }

    void record(SkiMethod method, SkiError error, long nanos) {
        if (method == null) {
            undecoded.increment();
            return;
        }
        requests[method.ordinal()][error == null ? 0 : 1 + error.ordinal()].increment();
        latency[method.ordinal()].record(nanos, TimeUnit.NANOSECONDS);
    }
}

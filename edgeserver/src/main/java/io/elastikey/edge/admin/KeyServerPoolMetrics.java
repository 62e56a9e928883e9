package io.elastikey.edge.admin;

import io.elastikey.edge.keyservers.BreakerState;
import io.elastikey.edge.keyservers.KeyServerEndpoint;
import io.elastikey.edge.keyservers.KeyServerPoolListener;
import io.elastikey.protocol.ski.SkiMethod;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The key-server pool's events as per-endpoint meters: operation latency and outcome, retries away from an
 * endpoint, breaker transitions. Meters are created up front for the configured endpoints, so an event is a
 * hash lookup and an increment.
 *
 * <ul>
 *   <li>{@code elastikey.edge.keyserver.duration{endpoint, result=ok|failed}}: from the handshake's request
 *       to the answer that endpoint gave, retries on other endpoints before it included.</li>
 *   <li>{@code elastikey.edge.keyserver.retries{endpoint}}: attempts on the endpoint that failed and were
 *       retried elsewhere.</li>
 *   <li>{@code elastikey.edge.keyserver.rejected}: operations failed at once because no endpoint was
 *       available.</li>
 *   <li>{@code elastikey.edge.keyserver.breaker.transitions{endpoint, to}}.</li>
 * </ul>
 */
public final class KeyServerPoolMetrics implements KeyServerPoolListener {
    private final Map<KeyServerEndpoint, Meters> meters = new HashMap<>();
    private final Counter rejected;

    public KeyServerPoolMetrics(EdgeMetrics metrics, List<KeyServerEndpoint> endpoints) {
        for (KeyServerEndpoint endpoint : endpoints) {
            meters.put(endpoint, new Meters(metrics, endpoint.toString()));
        }
        rejected = Counter.builder("elastikey.edge.keyserver.rejected")
                .description("Key operations failed at once because no key server was available")
                .register(metrics.registry());
    }

    @Override
    public void onSuccess(KeyServerEndpoint endpoint, SkiMethod method, long nanos) {
        Meters m = meters.get(endpoint);
        if (m != null) {
            m.ok.record(nanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void onFailure(KeyServerEndpoint endpoint, SkiMethod method, Throwable failure, long nanos) {
        Meters m = endpoint == null ? null : meters.get(endpoint);
        if (m == null) {
            rejected.increment();
        } else {
            m.failed.record(nanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void onRetry(KeyServerEndpoint endpoint, SkiMethod method, Throwable failure) {
        Meters m = meters.get(endpoint);
        if (m != null) {
            m.retries.increment();
        }
    }

    @Override
    public void onStateChange(KeyServerEndpoint endpoint, BreakerState from, BreakerState to) {
        Meters m = meters.get(endpoint);
        if (m != null) {
            m.transitions[to.ordinal()].increment();
        }
    }

    private static final class Meters {
        final Timer ok;
        final Timer failed;
        final Counter retries;
        final Counter[] transitions = new Counter[BreakerState.values().length];

        Meters(EdgeMetrics metrics, String endpoint) {
            ok = timer(metrics, endpoint, "ok");
            failed = timer(metrics, endpoint, "failed");
            retries = Counter.builder("elastikey.edge.keyserver.retries")
                    .description("Attempts on this key server that failed and were retried on another")
                    .tag("endpoint", endpoint).register(metrics.registry());
            for (BreakerState state : BreakerState.values()) {
                transitions[state.ordinal()] = Counter.builder("elastikey.edge.keyserver.breaker.transitions")
                        .description("Circuit-breaker transitions of this key server, by the state entered")
                        .tag("endpoint", endpoint).tag("to", state.label()).register(metrics.registry());
            }
        }

        private static Timer timer(EdgeMetrics metrics, String endpoint, String result) {
            return Timer.builder("elastikey.edge.keyserver.duration")
                    .description("Key operations by the key server that answered (or failed last), retries included")
                    .tag("endpoint", endpoint).tag("result", result)
                    .publishPercentileHistogram()
                    .minimumExpectedValue(Duration.ofNanos(50_000)).maximumExpectedValue(Duration.ofSeconds(10))
                    .register(metrics.registry());
        }
    }
}

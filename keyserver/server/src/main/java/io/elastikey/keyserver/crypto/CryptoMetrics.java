package io.elastikey.keyserver.crypto;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.util.function.ToDoubleFunction;

/**
 * The crypto engine's meters, read from its counters when scraped (nothing on the hot path):
 *
 * <ul>
 *   <li>{@code elastikey.crypto.provider} gauge, always 1, tagged {@code name} and {@code version}:
 *       which provider does the work (ACCP is several times faster, so it must be visible);</li>
 *   <li>{@code elastikey.crypto.queue.depth}, {@code elastikey.crypto.workers.active} gauges;</li>
 *   <li>{@code elastikey.crypto.operations} counter tagged {@code outcome}: {@code completed}
 *       (run to an answer or error), {@code failed}, {@code rejected} (queue full),
 *       {@code expired} (deadline passed while queued).</li>
 * </ul>
 */
public final class CryptoMetrics implements MeterBinder {
    private final CryptoEngine engine;
    private final CryptoProvider provider;

    public CryptoMetrics(CryptoEngine engine, CryptoProvider provider) {
        this.engine = engine;
        this.provider = provider;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder("elastikey.crypto.provider", () -> 1)
                .tag("name", provider.name())
                .tag("version", provider.version())
                .description("The JCA provider doing private-key operations")
                .register(registry);
        Gauge.builder("elastikey.crypto.queue.depth", engine, CryptoEngine::queueDepth)
                .description("Operations waiting for a crypto worker")
                .register(registry);
        Gauge.builder("elastikey.crypto.workers.active", engine, CryptoEngine::activeWorkers)
                .description("Crypto workers running an operation")
                .register(registry);
        counter(registry, "completed", CryptoEngine::completedCount);
        counter(registry, "failed", CryptoEngine::failedCount);
        counter(registry, "rejected", CryptoEngine::rejectedCount);
        counter(registry, "expired", CryptoEngine::expiredCount);
    }

    private void counter(MeterRegistry registry, String outcome, ToDoubleFunction<CryptoEngine> f) {
        FunctionCounter.builder("elastikey.crypto.operations", engine, f)
                .tag("outcome", outcome)
                .description("Crypto operations by outcome")
                .register(registry);
    }
}

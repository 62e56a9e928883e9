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
 *       {@code expired} (deadline passed while queued), {@code inline} (of the completed, those done on the
 *       request's own thread without a hand-off: P-256 signatures that found a nonce made ahead);</li>
 *   <li>with P-256 signed natively, {@code elastikey.crypto.p256.nonces} counter tagged {@code event}
 *       ({@code made}, {@code taken}, {@code missed}) and the {@code elastikey.crypto.p256.nonces.pooled} gauge: how
 *       much of the signing work the idle-priority pool took off the request path ({@link P256NoncePool}).</li>
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
        counter(registry, "inline", CryptoEngine::inlinedCount);
        if (provider.signsP256Natively()) {
            nonceCounter(registry, "made", P256NoncePool.Stats::made);
            nonceCounter(registry, "taken", P256NoncePool.Stats::taken);
            nonceCounter(registry, "missed", P256NoncePool.Stats::missed);
            Gauge.builder("elastikey.crypto.p256.nonces.pooled", provider, p -> p.p256NonceStats().pooled())
                    .description("Precomputed P-256 nonces ready for signatures")
                    .register(registry);
        }
    }

    private void nonceCounter(MeterRegistry registry, String event, ToDoubleFunction<P256NoncePool.Stats> f) {
        FunctionCounter.builder("elastikey.crypto.p256.nonces", provider, p -> f.applyAsDouble(p.p256NonceStats()))
                .tag("event", event)
                .description("P-256 nonces: made ahead at idle priority, taken by signatures, missed (pool empty)")
                .register(registry);
    }

    private void counter(MeterRegistry registry, String outcome, ToDoubleFunction<CryptoEngine> f) {
        FunctionCounter.builder("elastikey.crypto.operations", engine, f)
                .tag("outcome", outcome)
                .description("Crypto operations by outcome")
                .register(registry);
    }
}

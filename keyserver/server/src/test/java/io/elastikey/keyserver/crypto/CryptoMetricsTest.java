package io.elastikey.keyserver.crypto;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.keyserver.keys.LoadedKey;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.ski.SignatureScheme;
import io.elastikey.protocol.ski.SkiRequest;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class CryptoMetricsTest {

    @Test
    void providerAndCountersAreExported() {
        CryptoProvider provider = CryptoProvider.select(ProviderChoice.AUTO);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        LoadedKey key = TestKeys.loaded(CryptoProvider.jdk(), KeyType.EC_P256);
        CryptoEngineConfig config = new CryptoEngineConfig(1, 1, Duration.ofSeconds(5));
        try (CryptoEngine engine = new CryptoEngine((k, r) -> new byte[1], config)) {
            new CryptoMetrics(engine, provider).bindTo(registry);
            SkiRequest request = SkiRequest.sign(key.keyId(), SignatureScheme.ED25519, new byte[1]);
            engine.submit(key, request, System.nanoTime() - 1);

            assertThat(registry.get("elastikey.crypto.provider").tag("name", provider.name())
                    .tag("version", provider.version()).gauge().value()).isEqualTo(1.0);
            assertThat(registry.get("elastikey.crypto.operations").tag("outcome", "expired").functionCounter().count())
                    .isEqualTo(1.0);
            assertThat(registry.get("elastikey.crypto.operations").tag("outcome", "rejected").functionCounter().count())
                    .isZero();
            assertThat(registry.get("elastikey.crypto.queue.depth").gauge().value()).isZero();
        }
    }

    @Test
    void withNativeP256TheNoncePoolIsExported() throws Exception {
        CryptoProvider provider = CryptoProvider.select(ProviderChoice.AUTO, true);
        Assumptions.assumeTrue(provider.signsP256Natively(), "libelastikey_p256_jni not loaded here");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CryptoEngineConfig config = new CryptoEngineConfig(1, 1, Duration.ofSeconds(5));
        LoadedKey key = TestKeys.loaded(provider, KeyType.EC_P256);
        try (CryptoEngine engine = new CryptoEngine(new CryptoOperations(provider, new byte[32]), config);
             P256NoncePool.Handle pool = provider.startP256Nonces(64)) {
            new CryptoMetrics(engine, provider).bindTo(registry);
            double takenBefore = registry.get("elastikey.crypto.p256.nonces").tag("event", "taken").functionCounter()
                    .count();
            while (registry.get("elastikey.crypto.p256.nonces.pooled").gauge().value() < 64) {
                Thread.sleep(10); // the idle-priority filler gets a free core sooner or later
            }
            SkiRequest request = SkiRequest.sign(key.keyId(), SignatureScheme.ECDSA_SECP256R1_SHA256, new byte[32]);
            assertThat(engine.submit(key, request, System.nanoTime() + 5_000_000_000L).get()).isNotEmpty();

            assertThat(registry.get("elastikey.crypto.p256.nonces").tag("event", "taken").functionCounter().count())
                    .isEqualTo(takenBefore + 1);
            assertThat(registry.get("elastikey.crypto.p256.nonces").tag("event", "made").functionCounter().count())
                    .isGreaterThanOrEqualTo(64);
        }
    }
}

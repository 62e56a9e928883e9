package io.elastikey.keyserver.crypto;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.keyserver.keys.LoadedKey;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.ski.SignatureScheme;
import io.elastikey.protocol.ski.SkiRequest;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.time.Duration;
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
}

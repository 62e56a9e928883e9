package io.elastikey.edge.config;

import io.elastikey.protocol.config.ConfigException;
import io.elastikey.protocol.ski.SkiHttpVersion;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EdgeConfigTest {
    @Test
    void defaultsRunTheSuiteOnOneMachine() {
        EdgeConfig config = EdgeConfig.of(Map.of("data", "/srv/ek"));
        assertThat(config.listen().getPort()).isEqualTo(4433);
        assertThat(config.adminListen().getPort()).isEqualTo(9081);
        assertThat(config.certificates()).isEqualTo(Path.of("/srv/ek/edge/certs"));
        assertThat(config.keyServers()).hasSize(1).first().satisfies(a -> assertThat(a.getPort()).isEqualTo(8443));
        assertThat(config.keyServerCa()).isEqualTo(Path.of("/srv/ek/pki/ca.pem"));
        assertThat(config.clientCertificate()).isEqualTo(Path.of("/srv/ek/pki/client.pem"));
        assertThat(config.keyServerHttp()).isEqualTo(SkiHttpVersion.HTTP_2);
        assertThat(config.ticketRotation()).isEqualTo(Duration.ofHours(1));
        assertThat(config.protocols()).containsExactly("TLSv1.3", "TLSv1.2");
        assertThat(config.ciphers()).isEqualTo(EdgeConfig.DEFAULT_CIPHERS);
        assertThat(config.originAddress().getPort()).isEqualTo(8080);
        assertThat(config.cacheEnabled()).isTrue();
    }

    @Test
    void listsAndDurationsAreParsed() {
        EdgeConfig config = EdgeConfig.of(Map.of("keyservers", "127.0.0.1:1, 127.0.0.1:2", "tls.protocols", "TLSv1.3",
                "keyservers.timeout", "150ms", "keyservers.http", "1.1", "origin", "http://127.0.0.1:9000",
                "cache.enabled", "false"));
        assertThat(config.keyServers()).extracting(a -> a.getPort()).containsExactly(1, 2);
        assertThat(config.protocols()).containsExactly("TLSv1.3");
        assertThat(config.keyServerTimeout()).isEqualTo(Duration.ofMillis(150));
        assertThat(config.keyServerHttp()).isEqualTo(SkiHttpVersion.HTTP_1_1);
        assertThat(config.originAddress().getPort()).isEqualTo(9000);
        assertThat(config.cacheEnabled()).isFalse();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "tls.protocols|TLSv1.1|tls.protocols: 'TLSv1.1' is not TLSv1.3 or TLSv1.2",
            "keyservers|,|keyservers: name at least one key server",
            "keyservers|nowhere|keyservers: 'nowhere' is not host:port",
            "keyservers.http|3|keyservers.http: '3' is not 2 or 1.1",
            "origin|https://origin.example|origin: 'https://origin.example' must be http://HOST[:PORT]",
            "keyservers.timeout|0ms|keyservers.timeout: must be greater than zero",
            "cache.enabled|maybe|cache.enabled: 'maybe' is not true or false",
            "cache.max-entry|3g|cache.max-entry: 3g is outside 1 byte to 2 GiB",
            "no.such.setting|1|unknown setting(s): --set no.such.setting",
    })
    void badValuesFailWithTheSettingsName(String name, String value, String message) {
        assertThatThrownBy(() -> EdgeConfig.of(Map.of(name, value))).isInstanceOf(ConfigException.class)
                .hasMessageContaining(message);
    }
}

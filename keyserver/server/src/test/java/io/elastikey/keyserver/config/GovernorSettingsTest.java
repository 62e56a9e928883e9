// GovernorSettingsTest -- the store.governor.* and scaleup.* settings: defaults, and refusal of bad values.
package io.elastikey.keyserver.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.protocol.config.ConfigException;
import io.elastikey.protocol.config.ConfigSource;
import io.elastikey.store.governor.GovernorConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GovernorSettingsTest {
    @TempDir
    Path dir;

    private KeyServerConfig config(String... settings) throws Exception {
        Map<String, String> flags = new HashMap<>();
        flags.put("data", dir.toString());
        for (int i = 0; i < settings.length; i += 2) {
            flags.put(settings[i], settings[i + 1]);
        }
        return KeyServerConfig.from(new ConfigSource(flags, Map.of(), null));
    }

    @Test
    void offByDefaultWithTheDocumentedScaleUpDefaults() throws Exception {
        KeyServerConfig c = config();
        assertThat(c.storeGovernor()).isFalse();
        assertThat(c.governorConfig()).isNull();
        assertThat(c.scaleupSocket()).isNull();
        assertThat(c.scaleupClient()).isEqualTo("keyserver");
        assertThat(c.scaleupTimeout()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void onUsesStoreMemoryAsTheMinimumAnd4gAsTheMaximum() throws Exception {
        KeyServerConfig c = config("store.governor", "on", "scaleup.socket", "/run/scaleupd.sock",
                "scaleup.client", "ks-1", "scaleup.timeout", "250ms");
        GovernorConfig g = c.governorConfig();
        assertThat(c.storeGovernor()).isTrue();
        assertThat(g.minBudgetBytes()).isEqualTo(128L << 20);
        assertThat(g.maxBudgetBytes()).isEqualTo(4L << 30);
        assertThat(g.growStepBytes()).isEqualTo(256L << 20);
        assertThat(g.shrinkStepBytes()).isEqualTo(256L << 20);
        assertThat(g.reserveBytes()).isEqualTo(512L << 20);
        assertThat(g.interval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(c.scaleupSocket()).isEqualTo(Path.of("/run/scaleupd.sock"));
        assertThat(c.scaleupClient()).isEqualTo("ks-1");
        assertThat(c.scaleupTimeout()).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void everySettingIsTaken() throws Exception {
        GovernorConfig g = config("store.governor", "ON", "store.governor.min", "64m", "store.governor.max", "1g",
                "store.governor.step", "128m", "store.governor.reserve", "1g", "store.governor.interval", "500ms")
                .governorConfig();
        assertThat(g.minBudgetBytes()).isEqualTo(64L << 20);
        assertThat(g.maxBudgetBytes()).isEqualTo(1L << 30);
        assertThat(g.growStepBytes()).isEqualTo(128L << 20);
        assertThat(g.reserveBytes()).isEqualTo(1L << 30);
        assertThat(g.interval()).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void badValuesFailNamingTheSetting() {
        assertThatThrownBy(() -> config("store.governor", "maybe")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("store.governor: 'maybe'");
        assertThatThrownBy(() -> config("store.governor", "on", "store.memory", "8g"))
                .hasMessageContaining("store.governor.max").hasMessageContaining("from store.memory");
        assertThatThrownBy(() -> config("store.governor", "on", "store.governor.min", "1000000"))
                .hasMessageContaining("store.governor.min").hasMessageContaining("whole number of MiB");
        assertThatThrownBy(() -> config("store.governor", "on", "store.governor.step", "0"))
                .hasMessageContaining("store.governor.step");
        assertThatThrownBy(() -> config("store.governor", "on", "store.governor.interval", "0s"))
                .hasMessageContaining("store.governor.interval");
        assertThatThrownBy(() -> config("store.governor.max", "lots")).hasMessageContaining("store.governor.max");
        assertThatThrownBy(() -> config("scaleup.timeout", "0ms")).hasMessageContaining("scaleup.timeout");
        assertThatThrownBy(() -> config("scaleup.client", "x".repeat(65))).hasMessageContaining("scaleup.client");
    }
}

package io.elastikey.keyserver.governor;

import io.elastikey.scaleup.ScaleUpClient;
import io.elastikey.scaleup.jni.NativeScaleUpClient;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ScaleUpClientsTest {

    @Test
    void theNativeClientIsChosenWhereLibscaleupLoadsAndGetsTheSettings() {
        // This build ships libscaleup for the host (Maven runs make), so the JNI client loads here.
        try (ScaleUpClient client = ScaleUpClients.discover().create(Path.of("/tmp/x.sock"), "ks-1",
                Duration.ofMillis(250))) {
            assertThat(client).isInstanceOf(NativeScaleUpClient.class);
            assertThat(client.clientName()).isEqualTo("ks-1");
            assertThat(client.toString()).contains("/tmp/x.sock").contains("250 ms");
        }
    }

    @Test
    void badSettingsAreAnErrorNamingTheProblem() {
        assertThatThrownBy(() -> ScaleUpClients.discover().create(null, "has space", Duration.ofSeconds(1)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("client");
    }
}

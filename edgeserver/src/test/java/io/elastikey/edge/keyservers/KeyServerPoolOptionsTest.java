// KeyServerPoolOptionsTest -- the defaults, mutate(), and refusal of every bad value by name.
package io.elastikey.edge.keyservers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.function.UnaryOperator;

import io.elastikey.edge.keyservers.KeyServerPoolOptions.Builder;
import io.elastikey.protocol.ski.SkiHttpVersion;

import org.junit.jupiter.api.Test;

class KeyServerPoolOptionsTest {

    @Test
    void defaultsFitAHandshakeBudget() {
        KeyServerPoolOptions options = KeyServerPoolOptions.defaults();

        assertThat(options.attemptTimeout()).isEqualTo(Duration.ofMillis(500));
        assertThat(options.deadline()).isEqualTo(Duration.ofSeconds(2));
        assertThat(options.maxAttempts()).isEqualTo(3);
        assertThat(options.connectionsPerEndpoint()).isEqualTo(2);
        assertThat(options.httpVersion()).isEqualTo(SkiHttpVersion.HTTP_2);
        assertThat(options.connectTimeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(options.failureThreshold()).isEqualTo(5);
        assertThat(options.openDuration()).isEqualTo(Duration.ofSeconds(2));
        assertThat(options.maxOpenDuration()).isEqualTo(Duration.ofSeconds(30));
        assertThat(options.healthCheckInterval()).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void mutateKeepsEverythingNotChanged() {
        KeyServerPoolOptions options = KeyServerPoolOptions.builder().maxAttempts(5)
                .httpVersion(SkiHttpVersion.HTTP_1_1).openDuration(Duration.ofSeconds(3)).build();

        KeyServerPoolOptions changed = options.mutate().failureThreshold(9).build();

        assertThat(changed.maxAttempts()).isEqualTo(5);
        assertThat(changed.httpVersion()).isEqualTo(SkiHttpVersion.HTTP_1_1);
        assertThat(changed.openDuration()).isEqualTo(Duration.ofSeconds(3));
        assertThat(changed.failureThreshold()).isEqualTo(9);
        assertThat(options.failureThreshold()).isEqualTo(5);
    }

    @Test
    void refusesBadValuesNamingTheOption() {
        assertRefused(b -> b.attemptTimeout(Duration.ZERO), "attemptTimeout");
        assertRefused(b -> b.attemptTimeout(null), "attemptTimeout");
        assertRefused(b -> b.deadline(Duration.ofMillis(-1)), "deadline");
        assertRefused(b -> b.attemptTimeout(Duration.ofSeconds(3)), "deadline");
        assertRefused(b -> b.maxAttempts(0), "maxAttempts");
        assertRefused(b -> b.maxAttempts(11), "maxAttempts");
        assertRefused(b -> b.connectionsPerEndpoint(0), "connectionsPerEndpoint");
        assertRefused(b -> b.httpVersion(null), "httpVersion");
        assertRefused(b -> b.connectTimeout(Duration.ofDays(2)), "connectTimeout");
        assertRefused(b -> b.failureThreshold(0), "failureThreshold");
        assertRefused(b -> b.openDuration(Duration.ZERO), "openDuration");
        assertRefused(b -> b.maxOpenDuration(Duration.ofSeconds(1)), "maxOpenDuration");
        assertRefused(b -> b.healthCheckInterval(Duration.ofNanos(10)), "healthCheckInterval");
    }

    private static void assertRefused(UnaryOperator<Builder> change, String name) {
        assertThatThrownBy(() -> change.apply(KeyServerPoolOptions.builder()).build())
                .isInstanceOfAny(IllegalArgumentException.class, NullPointerException.class)
                .hasMessageContaining(name);
    }
}

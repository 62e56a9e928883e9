// SkiClientOptionsTest -- bad values fail at build() with the option's name; mutate() keeps the rest.
package io.elastikey.protocol.ski;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class SkiClientOptionsTest {

    @Test
    void defaultsSuitAnEdgeTalkingToOneKeyServer() {
        SkiClientOptions options = SkiClientOptions.defaults();

        assertThat(options.httpVersion()).isEqualTo(SkiHttpVersion.HTTP_2);
        assertThat(options.connections()).isEqualTo(1);
        assertThat(options.requestTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(options.eventLoopGroup()).isNull();
        assertThat(options.preferNativeTransport()).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badValues")
    void aBadValueFailsAtBuildNamingTheOption(String option, UnaryOperator<SkiClientOptions.Builder> change) {
        assertThatThrownBy(() -> change.apply(SkiClientOptions.builder()).build())
                .isInstanceOfAny(IllegalArgumentException.class, NullPointerException.class)
                .hasMessageContaining(option);
    }

    static Stream<Arguments> badValues() {
        return Stream.of(
                bad("connections", b -> b.connections(0)),
                bad("connections", b -> b.connections(10_001)),
                bad("connectTimeout", b -> b.connectTimeout(Duration.ZERO)),
                bad("connectTimeout", b -> b.connectTimeout(Duration.ofNanos(999_999))),
                bad("connectTimeout", b -> b.connectTimeout(null)),
                bad("requestTimeout", b -> b.requestTimeout(Duration.ofMillis(-5))),
                bad("requestTimeout", b -> b.requestTimeout(Duration.ofDays(2))),
                bad("maxOutstanding", b -> b.maxOutstanding(0)),
                bad("maxResponseBytes", b -> b.maxResponseBytes(10)),
                bad("serverName", b -> b.serverName(" ")),
                bad("eventLoopThreads", b -> b.eventLoopThreads(0)),
                bad("httpVersion", b -> b.httpVersion(null)));
    }

    private static Arguments bad(String option, UnaryOperator<SkiClientOptions.Builder> change) {
        return Arguments.of(option, change);
    }

    @Test
    void mutateChangesOnlyWhatItIsTold() {
        SkiClientOptions original = SkiClientOptions.builder().httpVersion(SkiHttpVersion.HTTP_1_1).connections(8)
                .requestTimeout(Duration.ofMillis(120)).serverName("keys.example.net").build();

        SkiClientOptions changed = original.mutate().connections(2).build();

        assertThat(changed.connections()).isEqualTo(2);
        assertThat(changed.httpVersion()).isEqualTo(SkiHttpVersion.HTTP_1_1);
        assertThat(changed.requestTimeout()).isEqualTo(Duration.ofMillis(120));
        assertThat(changed.serverName()).isEqualTo("keys.example.net");
        assertThat(original.connections()).isEqualTo(8);
    }

    @ParameterizedTest
    @ValueSource(strings = {"1.1", "http/1.1"})
    void parsesHttp11ByNumberOrAlpnName(String text) {
        assertThat(SkiHttpVersion.parse(text)).isEqualTo(SkiHttpVersion.HTTP_1_1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"2", "h2"})
    void parsesHttp2ByNumberOrAlpnName(String text) {
        assertThat(SkiHttpVersion.parse(text)).isEqualTo(SkiHttpVersion.HTTP_2);
    }

    @ParameterizedTest
    @ValueSource(strings = {"1.0", "3", "h2c", ""})
    void refusesOtherHttpVersions(String text) {
        assertThatThrownBy(() -> SkiHttpVersion.parse(text)).isInstanceOf(IllegalArgumentException.class);
    }
}

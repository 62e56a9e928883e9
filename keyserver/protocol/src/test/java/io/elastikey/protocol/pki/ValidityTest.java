// ValidityTest -- certificate validity windows: whole seconds, never empty, backdated for clock skew.
package io.elastikey.protocol.pki;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

class ValidityTest {
    @Test
    void endsAreTruncatedToWholeSecondsAsX509StoresThem() {
        Validity validity = new Validity(Instant.parse("2030-01-01T00:00:00.900Z"),
                Instant.parse("2030-01-02T00:00:00.100Z"));

        assertThat(validity.notBefore()).isEqualTo(Instant.parse("2030-01-01T00:00:00Z"));
        assertThat(validity.notAfter()).isEqualTo(Instant.parse("2030-01-02T00:00:00Z"));
    }

    @Test
    void anEmptyWindowIsRefused() {
        Instant instant = Instant.parse("2030-01-01T00:00:00Z");

        assertThatThrownBy(() -> new Validity(instant, instant))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not after notBefore");
    }

    @Test
    void daysStartsALittleInThePastForPeersWithSlowClocks() {
        Instant before = Instant.now();

        Validity validity = Validity.days(2);

        assertThat(validity.notBefore()).isBefore(before.minus(Validity.CLOCK_SKEW).plusSeconds(1));
        assertThat(Duration.between(before, validity.notAfter())).isBetween(Duration.ofDays(2).minusSeconds(2),
                Duration.ofDays(2).plusSeconds(2));
        assertThatThrownBy(() -> Validity.days(0)).isInstanceOf(IllegalArgumentException.class);
    }
}

package io.elastikey.keyserver.tickets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.protocol.tickets.TicketKey;
import io.elastikey.protocol.tickets.TicketKeySet;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TicketKeyScheduleTest {
    private static final Duration HOUR = Duration.ofHours(1);
    private final AtomicLong now = new AtomicLong(1_790_000_000_000L);

    private TicketKeySchedule schedule(byte fill) {
        byte[] secret = new byte[32];
        Arrays.fill(secret, fill);
        return new TicketKeySchedule(secret, HOUR, now::get);
    }

    @Test
    void twoKeyServersWithTheSameSecretHandOutTheSameKeys() {
        assertThat(schedule((byte) 1).current()).isEqualTo(schedule((byte) 1).current());
        assertThat(schedule((byte) 1).current().primary()).isNotEqualTo(schedule((byte) 2).current().primary());
    }

    @Test
    void theSetIsThePrimaryThenTheNextThenThePreviousPeriod() {
        TicketKeySchedule schedule = schedule((byte) 1);
        long epoch = schedule.epoch();
        TicketKeySet set = schedule.current();

        assertThat(set.keys()).extracting(TicketKey::epoch).containsExactly(epoch, epoch + 1, epoch - 1);
        assertThat(set.rotation()).isEqualTo(HOUR);
        Set<String> names = new HashSet<>();
        for (TicketKey key : set.keys()) {
            names.add(Arrays.toString(key.name()));
            assertThat(key.hmacKey()).isNotEqualTo(key.aesKey());
        }
        assertThat(names).hasSize(3);
    }

    @Test
    void aKeyIsAcceptedForTwoRotationsAndNotAfter() {
        TicketKeySchedule schedule = schedule((byte) 1);
        TicketKey issuedUnder = schedule.current().primary();

        now.addAndGet(HOUR.toMillis());
        assertThat(schedule.current().keys()).contains(issuedUnder).first().isNotEqualTo(issuedUnder);
        now.addAndGet(HOUR.toMillis());
        assertThat(schedule.current().keys()).doesNotContain(issuedUnder);
    }

    @Test
    void theNextPeriodsKeyIsKnownBeforeItIsPrimary() {
        TicketKeySchedule schedule = schedule((byte) 1);
        TicketKey next = schedule.current().keys().get(1);

        now.addAndGet(HOUR.toMillis());
        assertThat(schedule.current().primary()).isEqualTo(next);
    }

    @Test
    void aRotationUnderASecondIsRefused() {
        assertThatThrownBy(() -> new TicketKeySchedule(new byte[32], Duration.ofMillis(500), now::get))
                .isInstanceOf(IllegalArgumentException.class);
    }
}

package io.elastikey.edge.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.elastikey.protocol.tickets.TicketKey;
import io.elastikey.protocol.tickets.TicketKeySet;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which keys encrypt and which still decrypt as the edge moves between keys of its own and the deployment's. A
 * ticket resumes exactly when the key named in it is among the keys in force, so the names say which tickets
 * resume; FleetResumptionTest shows the same with real handshakes across two edges.
 */
class TicketKeysTest {

    @Test
    void ticketsIssuedBeforeTheFirstFetchStillResumeUntilTheDeploymentsNextPrimary() {
        TicketKeys keys = new TicketKeys();
        byte[] own = keys.names().get(0);

        keys.install(set(7, 6));
        assertThat(names(keys)).containsExactly(name(7), name(6), Arrays.toString(own));
        assertThat(keys.fleetEpoch()).isEqualTo(7);

        keys.install(set(8, 7));
        assertThat(names(keys)).as("the edge's own key is gone with the next primary")
                .containsExactly(name(8), name(7));
    }

    @Test
    void whenTheKeyServersComeBackTheKeysOfTheEdgesOwnRotationStillDecrypt() {
        TicketKeys keys = new TicketKeys();
        keys.install(set(7, 6));
        keys.rotate(); // the key servers were out of reach for a period
        byte[] own = keys.names().get(0);
        assertThat(names(keys)).containsExactly(Arrays.toString(own), name(7));

        keys.install(set(9, 8));
        assertThat(names(keys)).containsExactly(name(9), name(8), Arrays.toString(own));
    }

    private static List<String> names(TicketKeys keys) {
        return keys.names().stream().map(Arrays::toString).toList();
    }

    private static TicketKeySet set(long primary, long previous) {
        return new TicketKeySet(Duration.ofHours(1), List.of(key(primary), key(previous)));
    }

    private static TicketKey key(long epoch) {
        byte[] name = new byte[TicketKey.PART_LENGTH];
        Arrays.fill(name, (byte) epoch);
        byte[] secret = new byte[TicketKey.PART_LENGTH];
        Arrays.fill(secret, (byte) (epoch + 100));
        return new TicketKey(epoch, name, secret, secret);
    }

    private static String name(long epoch) {
        return Arrays.toString(key(epoch).name());
    }
}

package io.elastikey.protocol.tickets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class TicketKeySetTest {
    private static TicketKey key(long epoch, int fill) {
        byte[] part = new byte[16];
        Arrays.fill(part, (byte) fill);
        return new TicketKey(epoch, part, part.clone(), part.clone());
    }

    @Test
    void theJsonFormReadsBackToTheSameSet() {
        TicketKeySet set = new TicketKeySet(Duration.ofMinutes(30), List.of(key(7, 1), key(8, 2), key(6, 3)));

        TicketKeySet read = TicketKeySet.fromJson(set.toJson());

        assertThat(read).isEqualTo(set);
        assertThat(read.primary().epoch()).isEqualTo(7);
        assertThat(set.toString()).doesNotContain("AQEB");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "[]", "{}", "{\"rotation_seconds\":0,\"keys\":[]}",
            "{\"rotation_seconds\":60,\"keys\":[]}",
            "{\"rotation_seconds\":60,\"keys\":[{\"epoch\":1,\"name\":\"AAAA\",\"hmac\":\"AAAA\",\"aes\":\"AAAA\"}]}",
            "{\"rotation_seconds\":60,\"keys\":[{\"epoch\":1,\"name\":\"!!\"}]}",
            "{\"rotation_seconds\":\"60\",\"keys\":[]}"})
    void aBadSetIsRefusedWithoutEchoingIt(String json) {
        assertThatThrownBy(() -> TicketKeySet.fromJson(json.getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("bad ticket key set").hasMessageNotContaining("AAAA");
    }
}

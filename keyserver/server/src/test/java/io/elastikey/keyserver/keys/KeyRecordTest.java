// KeyRecordTest -- the record layout: round trip, the header is what the seal authenticates, damage is reported.
package io.elastikey.keyserver.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.protocol.pki.KeyType;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

class KeyRecordTest {
    static final KeyRecord RECORD = new KeyRecord(KeyType.RSA_4096, Instant.ofEpochMilli(1_700_000_000_123L),
            Set.of("edge"), List.of("a.example.test", "b.example.test"),
            List.of(new KeyRecord.Alias(AliasKind.CERTIFICATE_SHA1, new byte[20]),
                    new KeyRecord.Alias(AliasKind.MODULUS_SHA256, new byte[32])),
            3, "PEM".getBytes(StandardCharsets.US_ASCII), new byte[] {9, 8, 7});

    @Test
    void roundTrips() {
        KeyRecord decoded = KeyRecord.decode(RECORD.encode());
        assertThat(decoded.type()).isEqualTo(KeyType.RSA_4096);
        assertThat(decoded.created()).isEqualTo(RECORD.created());
        assertThat(decoded.tags()).containsExactly("edge");
        assertThat(decoded.names()).containsExactly("a.example.test", "b.example.test");
        assertThat(decoded.aliases()).extracting(KeyRecord.Alias::kind)
                .containsExactly(AliasKind.CERTIFICATE_SHA1, AliasKind.MODULUS_SHA256);
        assertThat(decoded.alias(AliasKind.MODULUS_SHA256)).hasSize(32);
        assertThat(decoded.alias(AliasKind.KEYLESS_SKI)).isNull();
        assertThat(decoded.otherCertificates()).isEqualTo(3);
        assertThat(decoded.chainPem()).asString(StandardCharsets.US_ASCII).isEqualTo("PEM");
        assertThat(decoded.sealedKey()).containsExactly(9, 8, 7);
        assertThat(decoded.header()).isEqualTo(RECORD.header());
    }

    @Test
    void theLayoutStartsWithVersionTypeAndCreationTime() {
        byte[] bytes = RECORD.encode();
        assertThat(bytes[0]).isEqualTo((byte) 1);
        assertThat(bytes[1]).isEqualTo((byte) 3); // rsa4096
        assertThat(ByteBuffer.wrap(bytes, 2, 8).getLong()).isEqualTo(1_700_000_000_123L);
        assertThat(bytes).endsWith(0, 0, 0, 3, 9, 8, 7);
    }

    @Test
    void associatedDataIsTheKeyIdThenTheHeader() {
        byte[] keyId = new byte[32];
        keyId[0] = 42;
        byte[] aad = RECORD.associatedData(keyId);
        assertThat(aad).startsWith(keyId).endsWith(RECORD.header());
        assertThat(aad).hasSize(32 + RECORD.encode().length - 4 - 3);
    }

    @Test
    void damageIsReportedByField() {
        byte[] bytes = RECORD.encode();
        byte[] wrongVersion = bytes.clone();
        wrongVersion[0] = 2;
        assertThatThrownBy(() -> KeyRecord.decode(wrongVersion)).hasMessageContaining("version 2");
        byte[] wrongType = bytes.clone();
        wrongType[1] = 77;
        assertThatThrownBy(() -> KeyRecord.decode(wrongType)).hasMessageContaining("key type code 77");
        assertThatThrownBy(() -> KeyRecord.decode(Arrays.copyOf(bytes, bytes.length - 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("truncated");
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
        assertThatThrownBy(() -> KeyRecord.decode(longer)).hasMessageContaining("inconsistent");
        assertThatThrownBy(() -> KeyRecord.decode(new byte[0])).isInstanceOf(IllegalArgumentException.class);
    }
}

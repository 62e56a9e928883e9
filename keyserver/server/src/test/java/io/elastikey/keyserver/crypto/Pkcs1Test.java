package io.elastikey.keyserver.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The constant-time block check and the type-1 encoding, on blocks built byte by byte. */
class Pkcs1Test {
    private static final int K = 256;

    @Test
    void aValidBlockYieldsItsMessageAndIsWiped() {
        byte[] block = RsaDecryptionTest.block(K, 0x00, 0x02, 48);
        byte[] message = Arrays.copyOfRange(block, K - 48, K);

        byte[] answer = Pkcs1.premasterOrSubstitute(block, substitute());

        assertThat(answer).isEqualTo(message);
        assertThat(block).containsOnly(0);
    }

    @Test
    void eachDefectYieldsTheSubstitute() {
        byte[] substitute = substitute();
        int separator = K - 49;
        for (int defect = 0; defect < 5; defect++) {
            byte[] block = RsaDecryptionTest.block(K, 0x00, 0x02, 48);
            switch (defect) {
                case 0 -> block[0] = 0x01;
                case 1 -> block[1] = 0x01;
                case 2 -> block[2] = 0x00;                    // first padding byte
                case 3 -> block[separator - 1] = 0x00;        // last padding byte: message would be 49 bytes
                default -> block[separator] = 0x01;           // no separator where a 48-byte message needs it
            }

            assertThat(Pkcs1.premasterOrSubstitute(block, substitute))
                    .as("defect %d", defect).isEqualTo(Arrays.copyOf(substitute, 48));
        }
    }

    @Test
    void theSmallestBlockThatFitsAPremasterIsChecked() {
        byte[] block = RsaDecryptionTest.block(59, 0x00, 0x02, 48); // 8 bytes of padding

        byte[] message = Arrays.copyOfRange(block, 11, 59);

        assertThat(Pkcs1.premasterOrSubstitute(block, substitute())).isEqualTo(message);
    }

    @Test
    void type1BlockIsZeroOneFfZeroDigest() {
        byte[] digest = new byte[36];
        Arrays.fill(digest, (byte) 0x5a);

        byte[] block = Pkcs1.type1(digest, K);

        assertThat(block).hasSize(K);
        assertThat(block[0]).isEqualTo((byte) 0);
        assertThat(block[1]).isEqualTo((byte) 1);
        assertThat(Arrays.copyOfRange(block, 2, K - 37)).containsOnly((byte) 0xFF);
        assertThat(block[K - 37]).isEqualTo((byte) 0);
        assertThat(Arrays.copyOfRange(block, K - 36, K)).isEqualTo(digest);
        assertThatThrownBy(() -> Pkcs1.type1(digest, 46)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void zeroTestsAgreeWithComparisonForEveryByte() {
        for (int b = -256; b < 512; b++) {
            int expected = (b & 0xFF) == 0 ? 1 : 0;
            assertThat(Pkcs1.isZero(b)).as("byte %d", b).isEqualTo(expected);
            assertThat(Pkcs1.isNonZero(b)).as("byte %d", b).isEqualTo(1 - expected);
        }
    }

    private static byte[] substitute() {
        byte[] substitute = new byte[64];
        for (int i = 0; i < substitute.length; i++) {
            substitute[i] = (byte) (0xA0 + i);
        }
        return substitute;
    }
}

// SealerTest -- AES-256-GCM sealing: random nonces, bound to associated data, altered bytes refused.
package io.elastikey.keyserver.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.GeneralSecurityException;

import org.junit.jupiter.api.Test;

class SealerTest {
    final Sealer sealer = new Sealer(KeyRepositoryTest.KEK);
    final byte[] plaintext = "-----BEGIN PRIVATE KEY-----".getBytes();
    final byte[] aad = {1, 2, 3};

    @Test
    void sealsWithAVersionAFreshNonceAndATag() throws Exception {
        byte[] once = sealer.seal(plaintext, aad);
        byte[] twice = sealer.seal(plaintext, aad);
        assertThat(once).hasSize(plaintext.length + Sealer.OVERHEAD).startsWith(Sealer.VERSION);
        assertThat(once).isNotEqualTo(twice);
        assertThat(sealer.unseal(once, aad)).isEqualTo(plaintext);
        assertThat(sealer.unseal(twice, aad)).isEqualTo(plaintext);
    }

    @Test
    void otherAssociatedDataAnotherKekOrAnAlteredByteIsRefused() {
        byte[] sealed = sealer.seal(plaintext, aad);
        assertThatThrownBy(() -> sealer.unseal(sealed, new byte[] {1, 2, 4}))
                .isInstanceOf(GeneralSecurityException.class);
        assertThatThrownBy(() -> new Sealer(SealingTest.OTHER_KEK).unseal(sealed, aad))
                .isInstanceOf(GeneralSecurityException.class);
        for (int i = 0; i < sealed.length; i++) {
            byte[] altered = sealed.clone();
            altered[i] ^= (byte) 0x80;
            assertThatThrownBy(() -> sealer.unseal(altered, aad)).as("byte " + i)
                    .isInstanceOf(GeneralSecurityException.class);
        }
        assertThatThrownBy(() -> sealer.unseal(new byte[5], aad)).hasMessageContaining("too short");
    }
}

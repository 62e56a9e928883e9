// KeyEntryTest -- a key is accepted only with a certificate for that very key.
package io.elastikey.keyserver.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.protocol.pki.KeyType;

import java.security.InvalidKeyException;
import java.util.Base64;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

class KeyEntryTest {

    @Test
    void aKeyFromOutsideIsMatchedToItsCertificateForEveryType() throws Exception {
        for (KeyType type : KeyType.values()) {
            KeyEntry generated = TestKeys.entry(type, "match.example.test");
            KeyEntry imported = KeyEntry.of(generated.privateKey(), generated.chain(), Set.of("x"));
            assertThat(imported.keyId()).as(type.cliName()).isEqualTo(generated.keyId());
            assertThat(imported.type()).isEqualTo(type);
            assertThat(PublicKeys.of(generated.privateKey()).getEncoded())
                    .isEqualTo(generated.certificate().getPublicKey().getEncoded());
        }
    }

    @Test
    void aCertificateForAnotherKeyIsRefusedNamingBothKeys() {
        KeyEntry ec = TestKeys.entry(KeyType.EC_P256, "a.example.test");
        KeyEntry other = TestKeys.fresh(KeyType.EC_P256, "b.example.test");
        assertThatThrownBy(() -> KeyEntry.of(other.privateKey(), ec.chain(), Set.of()))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessageContaining(ec.keyId()).hasMessageContaining(other.keyId());
        assertThatThrownBy(() -> KeyEntry.generated(TestKeys.pair(KeyType.ED25519), ec.chain(), Set.of()))
                .isInstanceOf(InvalidKeyException.class);
    }

    @Test
    void aKeyNeedsACertificateAndTagsAreSingleWords() {
        KeyEntry ec = TestKeys.entry(KeyType.EC_P256, "a.example.test");
        assertThatThrownBy(() -> KeyEntry.of(ec.privateKey(), List.of(), Set.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("certificate");
        assertThatThrownBy(() -> KeyEntry.of(ec.privateKey(), ec.chain(), Set.of("two words")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("one word");
        assertThatThrownBy(() -> KeyEntry.of(ec.privateKey(), ec.chain(), Set.of("a,b")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void toStringShowsNoKeyMaterial() {
        KeyEntry rsa = TestKeys.entry(KeyType.RSA_2048, "a.example.test");
        String base64 = Base64.getEncoder().encodeToString(rsa.privateKey().getEncoded());
        assertThat(rsa.toString()).contains(rsa.keyId()).doesNotContain(base64.substring(40, 60));
        assertThat(rsa.keyId()).isEqualTo(KeyIds.keyId(rsa.certificate().getPublicKey()));
    }
}

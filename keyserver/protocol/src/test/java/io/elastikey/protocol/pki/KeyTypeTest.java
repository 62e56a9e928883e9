// KeyTypeTest -- key generation, CLI names, and recognising the type of an existing key.
package io.elastikey.protocol.pki;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.ECGenParameterSpec;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class KeyTypeTest {
    @ParameterizedTest
    @EnumSource(KeyType.class)
    void everyKeyTypeGeneratesAKeyItRecognisesAsItsOwn(KeyType type) {
        KeyPair pair = TestKeys.of(type);

        assertThat(KeyType.of(pair.getPublic())).isEqualTo(type);
        assertThat(type.matches(pair.getPrivate(), pair.getPublic())).isTrue();
        switch (type) {
            case RSA_2048, RSA_3072, RSA_4096 -> assertThat(((RSAPublicKey) pair.getPublic()).getModulus().bitLength())
                    .isEqualTo(Integer.parseInt(type.cliName().substring(3)));
            case EC_P256, EC_P384 -> assertThat(((ECPublicKey) pair.getPublic()).getParams().getOrder().bitLength())
                    .isEqualTo(Integer.parseInt(type.cliName().substring(2)));
            case ED25519 -> assertThat(pair.getPublic().getAlgorithm()).isIn("EdDSA", "Ed25519");
        }
    }

    @Test
    void generateMakesAFreshKeyEachTime() {
        assertThat(KeyType.EC_P256.generate().getPublic()).isNotEqualTo(KeyType.EC_P256.generate().getPublic());
    }

    @Test
    void signatureAlgorithmFollowsTheKeyAndCurve() {
        assertThat(KeyType.RSA_4096.signatureAlgorithm()).isEqualTo("SHA256withRSA");
        assertThat(KeyType.EC_P256.signatureAlgorithm()).isEqualTo("SHA256withECDSA");
        assertThat(KeyType.EC_P384.signatureAlgorithm()).isEqualTo("SHA384withECDSA");
        assertThat(KeyType.ED25519.signatureAlgorithm()).isEqualTo("Ed25519");
    }

    @ParameterizedTest
    @EnumSource(KeyType.class)
    void parseAcceptsEveryCliNameIgnoringCase(KeyType type) {
        assertThat(KeyType.parse(type.cliName())).isEqualTo(type);
        assertThat(KeyType.parse(type.cliName().toUpperCase())).isEqualTo(type);
    }

    @Test
    void parseOfAnUnknownNameListsTheValidNames() {
        assertThatThrownBy(() -> KeyType.parse("rsa1024"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'rsa1024'")
                .hasMessageContaining("rsa2048, rsa3072, rsa4096, ec256, ec384, ed25519");
    }

    @Test
    void ofRejectsAnRsaKeyOfAnotherSize() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(1024);

        assertThatThrownBy(() -> KeyType.of(generator.generateKeyPair().getPublic()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1024 bits");
    }

    @Test
    void ofRejectsAnotherCurve() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp521r1"));

        assertThatThrownBy(() -> KeyType.of(generator.generateKeyPair().getPublic()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("curve 1.3.132.0.35");
    }

    @Test
    void aKeyDoesNotMatchAnotherKeysPublicHalf() {
        KeyPair one = TestKeys.of(KeyType.ED25519);
        KeyPair other = KeyType.ED25519.generate();

        assertThat(KeyType.ED25519.matches(one.getPrivate(), other.getPublic())).isFalse();
    }
}

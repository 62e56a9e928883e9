package io.elastikey.keyserver.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.keyserver.keys.PrivateKeyParser;
import io.elastikey.protocol.pki.KeyType;

import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.security.KeyPairGenerator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ProviderKeyParserTest {

    @ParameterizedTest
    @EnumSource(TestProviders.class)
    void keysBecomeTheProvidersOwnObjects(TestProviders providers) throws Exception {
        CryptoProvider provider = providers.get();
        PrivateKeyParser parser = provider.keyParser();

        for (KeyType type : KeyType.values()) {
            PrivateKey key = parser.parse(type, TestKeys.pair(type).getPrivate().getEncoded());

            // Ed25519 included: ACCP's unregistered key factory is reached on purpose (AccpLoader)
            String expectedPackage = providers == TestProviders.NATIVE_P256 && type == KeyType.EC_P256
                    ? P256ScalarKey.class.getName()
                    : provider.isAccp() ? "com.amazon.corretto.crypto.provider." : "sun.security.";
            assertThat(key.getClass().getName()).as(type.cliName()).startsWith(expectedPackage);
            assertThat(key.getAlgorithm()).isIn(type.keyAlgorithm(), "EdDSA");
        }
    }

    @ParameterizedTest
    @EnumSource(TestProviders.class)
    void keysOfAnotherTypeThanDeclaredAreRefused(TestProviders providers) throws Exception {
        PrivateKeyParser parser = providers.get().keyParser();
        byte[] rsa2048 = TestKeys.pair(KeyType.RSA_2048).getPrivate().getEncoded();
        byte[] p384 = TestKeys.pair(KeyType.EC_P384).getPrivate().getEncoded();
        KeyPairGenerator k1 = KeyPairGenerator.getInstance("EC", "SunEC");
        byte[] secp256k1 = null;
        try {
            k1.initialize(new ECGenParameterSpec("secp256k1"));
            secp256k1 = k1.generateKeyPair().getPrivate().getEncoded();
        } catch (GeneralSecurityException e) {
            // Java 17's SunEC no longer generates secp256k1 keys: that case is then left out
        }

        assertThatThrownBy(() -> parser.parse(KeyType.RSA_3072, rsa2048)).isInstanceOf(GeneralSecurityException.class);
        assertThatThrownBy(() -> parser.parse(KeyType.EC_P256, rsa2048)).isInstanceOf(GeneralSecurityException.class);
        assertThatThrownBy(() -> parser.parse(KeyType.EC_P256, p384)).isInstanceOf(GeneralSecurityException.class);
        assertThatThrownBy(() -> parser.parse(KeyType.ED25519, p384)).isInstanceOf(GeneralSecurityException.class);
        assertThatThrownBy(() -> parser.parse(KeyType.RSA_2048, new byte[]{0x30, 0x03, 0x02, 0x01, 0x00}))
                .isInstanceOf(GeneralSecurityException.class);
        if (secp256k1 != null) {
            byte[] k1Key = secp256k1;
            assertThatThrownBy(() -> parser.parse(KeyType.EC_P256, k1Key)).isInstanceOf(GeneralSecurityException.class);
        }
    }
}

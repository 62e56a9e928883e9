package io.elastikey.keyserver.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class ImplicitRejectionTest {
    private static final byte[] CIPHERTEXT = new byte[256];

    static {
        Arrays.fill(CIPHERTEXT, (byte) 7);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 16, 31, 33, 64})
    void secretsOfAnotherLengthThan32AreRefused(int length) {
        assertThatThrownBy(() -> new ImplicitRejection(CryptoProvider.jdk(), new byte[length]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("32 bytes");
    }

    @ParameterizedTest
    @EnumSource(TestProviders.class)
    void sameInputsGiveTheSameSubstituteOnAnyThread(TestProviders providers) throws Exception {
        ImplicitRejection rejection = new ImplicitRejection(providers.get(), secret(1));

        byte[] here = rejection.substitute("key-a", CIPHERTEXT);
        byte[] elsewhere = CompletableFuture.supplyAsync(() -> {
            try {
                return rejection.substitute("key-a", CIPHERTEXT);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }).get();

        assertThat(here).hasSize(ImplicitRejection.OUTPUT_LENGTH).isEqualTo(elsewhere);
        assertThat(Arrays.copyOfRange(here, 32, 64)).isNotEqualTo(Arrays.copyOf(here, 32));
    }

    @ParameterizedTest
    @EnumSource(TestProviders.class)
    void theSubstituteDependsOnSecretKeyAndCiphertext(TestProviders providers) throws Exception {
        byte[] base = new ImplicitRejection(providers.get(), secret(1)).substitute("key-a", CIPHERTEXT);
        byte[] otherCiphertext = CIPHERTEXT.clone();
        otherCiphertext[255] ^= 1;

        ImplicitRejection sameSecret = new ImplicitRejection(providers.get(), secret(1));
        ImplicitRejection otherSecret = new ImplicitRejection(providers.get(), secret(2));

        assertThat(sameSecret.substitute("key-a", CIPHERTEXT.clone())).isEqualTo(base);
        assertThat(otherSecret.substitute("key-a", CIPHERTEXT)).isNotEqualTo(base);
        assertThat(sameSecret.substitute("key-b", CIPHERTEXT)).isNotEqualTo(base);
        assertThat(sameSecret.substitute("key-a", otherCiphertext)).isNotEqualTo(base);
    }

    @ParameterizedTest
    @EnumSource(TestProviders.class)
    void bothProvidersComputeTheSameFunction(TestProviders providers) throws Exception {
        byte[] jdk = new ImplicitRejection(CryptoProvider.jdk(), secret(3)).substitute("key-a", CIPHERTEXT);

        assertThat(new ImplicitRejection(providers.get(), secret(3)).substitute("key-a", CIPHERTEXT)).isEqualTo(jdk);
    }

    private static byte[] secret(int fill) {
        byte[] secret = new byte[32];
        Arrays.fill(secret, (byte) fill);
        return secret;
    }
}

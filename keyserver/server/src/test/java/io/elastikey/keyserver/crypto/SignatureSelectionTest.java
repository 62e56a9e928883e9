package io.elastikey.keyserver.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.ski.SignatureScheme;
import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiException;
import io.elastikey.protocol.ski.SkiHash;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The table from request to recipe, on its own: which combinations are refused, and why. */
class SignatureSelectionTest {

    @Test
    void ecdheFollowsTheKeyAndTheHash() {
        assertThat(SignatureSelection.forEcdhe(KeyType.RSA_3072, SkiHash.MD5_SHA1))
                .isEqualTo(SignatureRecipe.RSA_PKCS1_MD5_SHA1);
        assertThat(SignatureSelection.forEcdhe(KeyType.RSA_2048, SkiHash.SHA1))
                .isEqualTo(SignatureRecipe.RSA_PKCS1_SHA1);
        assertThat(SignatureSelection.forEcdhe(KeyType.EC_P384, SkiHash.MD5_SHA1))
                .isEqualTo(SignatureRecipe.ECDSA_MD5_SHA1);
        assertThat(SignatureSelection.forEcdhe(KeyType.EC_P256, SkiHash.SHA512))
                .isEqualTo(SignatureRecipe.ECDSA_SHA512);
    }

    @ParameterizedTest
    @EnumSource(SkiHash.class)
    void ed25519IgnoresTheHash(SkiHash hash) {
        assertThat(SignatureSelection.forEcdhe(KeyType.ED25519, hash)).isEqualTo(SignatureRecipe.ED25519);
        assertThat(SignatureSelection.forEcdhe(KeyType.ED25519, null)).isEqualTo(SignatureRecipe.ED25519);
    }

    @Test
    void ecdheWithoutAHashIsMalformedForRsaAndEc() {
        assertMalformed(() -> SignatureSelection.forEcdhe(KeyType.RSA_2048, null), "without a hash");
        assertMalformed(() -> SignatureSelection.forEcdhe(KeyType.EC_P256, null), "without a hash");
        assertMalformed(() -> SignatureSelection.forScheme(KeyType.EC_P256, null), "without a scheme");
    }

    @Test
    void schemesThatDoNotFitTheKeyAreMalformedWithTheReason() {
        assertMalformed(() -> SignatureSelection.forScheme(KeyType.EC_P384, SignatureScheme.ECDSA_SECP256R1_SHA256),
                "does not fit a ec384 key");
        assertMalformed(() -> SignatureSelection.forScheme(KeyType.RSA_2048, SignatureScheme.RSA_PSS_PSS_SHA256),
                "needs an RSASSA-PSS key");
        assertMalformed(() -> SignatureSelection.forScheme(KeyType.EC_P384, SignatureScheme.ECDSA_SECP521R1_SHA512),
                "needs a P-521 key");
        assertMalformed(() -> SignatureSelection.forScheme(KeyType.ED25519, SignatureScheme.RSA_PKCS1_SHA256),
                "does not fit a ed25519 key");
        assertThat(SignatureSelection.forScheme(KeyType.EC_P384, SignatureScheme.ECDSA_SHA1))
                .isEqualTo(SignatureRecipe.ECDSA_SHA1);
    }

    private static void assertMalformed(Runnable selection, String reason) {
        assertThatThrownBy(selection::run).isInstanceOfSatisfying(SkiException.class, e -> {
            assertThat(e.error()).isEqualTo(SkiError.MALFORMED_REQUEST);
            assertThat(e.getMessage()).contains(reason);
        });
    }
}

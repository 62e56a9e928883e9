// LocalKeyOperationsTest -- SKI operations answered from the key server's repository, checked with the public keys.
package io.elastikey.perf.handshake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.Signature;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import javax.crypto.Cipher;

import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.ski.SignatureScheme;
import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiException;
import io.elastikey.protocol.ski.SkiRequest;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalKeyOperationsTest {
    @TempDir
    static Path data;
    private static TestKeyData keys;

    private LocalKeyOperations operations;

    @BeforeAll
    static void storeKeys() throws Exception {
        keys = TestKeyData.create(data, List.of(KeyType.EC_P256, KeyType.RSA_2048));
    }

    @BeforeEach
    void open() {
        operations = new LocalKeyOperations(keys.config());
    }

    @AfterEach
    void close() {
        operations.close();
    }

    @Test
    void signsWithTheEcKeyAndThePublicKeyVerifies() throws Exception {
        KeyPair ec = keys.keys().get(KeyType.EC_P256);
        byte[] message = "TLS 1.3, server CertificateVerify".getBytes(StandardCharsets.US_ASCII);

        byte[] signature = answer(SkiRequest.sign(KeyIds.keyId(ec.getPublic()),
                SignatureScheme.ECDSA_SECP256R1_SHA256, message));

        Signature verifier = Signature.getInstance("SHA256withECDSA");
        verifier.initVerify(ec.getPublic());
        verifier.update(message);
        assertThat(verifier.verify(signature)).isTrue();
        assertThat(operations.keysLoaded()).isEqualTo(1);
    }

    @Test
    void rsaRawDecryptionReturnsThePaddedBlockEndingInThePlaintext() throws Exception {
        KeyPair rsa = keys.keys().get(KeyType.RSA_2048);
        byte[] premaster = new byte[48];
        Arrays.fill(premaster, (byte) 0x33);
        premaster[0] = 0x03;
        premaster[1] = 0x03;
        Cipher cipher = Cipher.getInstance("RSA/ECB/PKCS1Padding");
        cipher.init(Cipher.ENCRYPT_MODE, rsa.getPublic());

        byte[] block = answer(SkiRequest.rsaRaw(KeyIds.keyId(rsa.getPublic()), cipher.doFinal(premaster)));

        assertThat(block).hasSize(256);
        assertThat(block[0]).isZero();
        assertThat(block[1]).isEqualTo((byte) 2);
        assertThat(block[256 - 49]).as("the separator before the plaintext").isZero();
        assertThat(Arrays.copyOfRange(block, 256 - 48, 256)).isEqualTo(premaster);
    }

    @Test
    void aKeyIsLookedUpOnceAndServesAgain() throws Exception {
        KeyPair ec = keys.keys().get(KeyType.EC_P256);
        SkiRequest request = SkiRequest.sign(KeyIds.keyId(ec.getPublic()), SignatureScheme.ECDSA_SECP256R1_SHA256,
                new byte[32]);

        for (int i = 0; i < 5; i++) {
            assertThat(answer(request)).isNotEmpty();
        }
        assertThat(operations.keysLoaded()).isEqualTo(1);
    }

    @Test
    void anUnknownKeyIsSpkiNotFound() {
        String unknown = "ab".repeat(32);

        assertThatThrownBy(() -> answer(SkiRequest.sign(unknown, SignatureScheme.ECDSA_SECP256R1_SHA256,
                new byte[32])))
                .isInstanceOf(SkiException.class)
                .satisfies(e -> assertThat(((SkiException) e).error()).isEqualTo(SkiError.SPKI_NOT_FOUND));
        assertThat(operations.keysLoaded()).isZero();
    }

    @Test
    void aSchemeThatDoesNotFitTheKeyIsMalformed() {
        KeyPair ec = keys.keys().get(KeyType.EC_P256);

        assertThatThrownBy(() -> answer(SkiRequest.sign(KeyIds.keyId(ec.getPublic()),
                SignatureScheme.RSA_PSS_RSAE_SHA256, new byte[32])))
                .isInstanceOf(SkiException.class)
                .satisfies(e -> assertThat(((SkiException) e).error()).isEqualTo(SkiError.MALFORMED_REQUEST));
    }

    private byte[] answer(SkiRequest request) throws Exception {
        try {
            return operations.execute(request).get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw (Exception) e.getCause();
        }
    }
}

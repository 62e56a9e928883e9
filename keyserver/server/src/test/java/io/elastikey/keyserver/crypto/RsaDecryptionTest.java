package io.elastikey.keyserver.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elastikey.keyserver.keys.LoadedKey;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiException;
import io.elastikey.protocol.ski.SkiRequest;

import java.math.BigInteger;
import java.security.SecureRandom;
import java.security.interfaces.RSAPrivateKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code RSA} and {@code RSA-RAW} under both providers: round trips against the JDK's PKCS#1
 * encryption, implicit rejection of every kind of bad block, and the raw operation against
 * textbook {@code c^d mod n}. Bad blocks are made by the test itself and encrypted with the
 * bare public operation, as an attacker would.
 */
class RsaDecryptionTest {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final KeyType[] RSA_TYPES = {KeyType.RSA_2048, KeyType.RSA_3072, KeyType.RSA_4096};

    static List<Arguments> providersAndSizes() {
        List<Arguments> cases = new ArrayList<>();
        for (TestProviders provider : TestProviders.values()) {
            for (KeyType type : RSA_TYPES) {
                cases.add(Arguments.of(provider, type));
            }
        }
        return cases;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("providersAndSizes")
    void decryptsWhatAClientEncrypted(TestProviders providers, KeyType type) throws Exception {
        CryptoOperations operations = operations(providers, 1);
        LoadedKey key = TestKeys.loaded(operations.provider(), type);
        byte[] premaster = random(48);
        premaster[0] = 3;
        premaster[1] = 3;

        byte[] ciphertext = JdkCrypto.encryptPkcs1(TestKeys.publicKey(key), premaster);

        byte[] answer = operations.perform(key, SkiRequest.rsa(key.keyId(), ciphertext));

        assertThat(answer).isEqualTo(premaster);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("providersAndSizes")
    void everyKindOfBadBlockGetsADeterministic48ByteAnswer(TestProviders providers, KeyType type) throws Exception {
        CryptoOperations operations = operations(providers, 1);
        LoadedKey key = TestKeys.loaded(operations.provider(), type);
        int k = JdkCrypto.modulusLength(TestKeys.publicKey(key));
        List<byte[]> blocks = List.of(
                block(k, 0x00, 0x01, 48),                 // type 1, not 2
                block(k, 0x01, 0x02, 48),                 // first byte not zero
                zeroInPadding(block(k, 0x00, 0x02, 48)),  // a zero inside PS
                block(k, 0x00, 0x02, 47),                 // message one byte short
                block(k, 0x00, 0x02, 49),                 // message one byte long
                block(k, 0x00, 0x02, 0),                  // no message at all
                noSeparator(block(k, 0x00, 0x02, 48)));   // PS runs to the end
        for (byte[] bad : blocks) {
            byte[] ciphertext = JdkCrypto.rawPublic(TestKeys.publicKey(key), bad);
            byte[] first = operations.perform(key, SkiRequest.rsa(key.keyId(), ciphertext));
            byte[] second = operations.perform(key, SkiRequest.rsa(key.keyId(), ciphertext.clone()));

            assertThat(first).hasSize(48).isEqualTo(second);
            assertThat(first).isNotEqualTo(Arrays.copyOfRange(bad, k - 48, k));
        }
    }

    @ParameterizedTest
    @EnumSource(TestProviders.class)
    void aValidBlockWithAShortMessageIsRejectedAlike(TestProviders providers) throws Exception {
        CryptoOperations operations = operations(providers, 1);
        LoadedKey key = TestKeys.loaded(operations.provider(), KeyType.RSA_2048);
        byte[] secret32 = random(32);

        byte[] ciphertext = JdkCrypto.encryptPkcs1(TestKeys.publicKey(key), secret32);

        byte[] answer = operations.perform(key, SkiRequest.rsa(key.keyId(), ciphertext));

        assertThat(answer).hasSize(48);
        assertThat(Arrays.copyOfRange(answer, 16, 48)).isNotEqualTo(secret32);
    }

    @ParameterizedTest
    @EnumSource(TestProviders.class)
    void answersDependOnCiphertextSecretAndKey(TestProviders providers) throws Exception {
        CryptoProvider provider = providers.get();
        LoadedKey key = TestKeys.loaded(provider, KeyType.RSA_2048);
        LoadedKey otherKey = TestKeys.loaded(provider, KeyType.RSA_2048, 1);
        byte[] bad = JdkCrypto.rawPublic(TestKeys.publicKey(key), block(256, 0x00, 0x01, 48));
        byte[] otherBad = JdkCrypto.rawPublic(TestKeys.publicKey(key), block(256, 0x00, 0x01, 48));
        byte[] badForOtherKey = JdkCrypto.rawPublic(TestKeys.publicKey(otherKey), block(256, 0x00, 0x01, 48));

        byte[] answer = operations(providers, 1).perform(key, SkiRequest.rsa(key.keyId(), bad));

        assertThat(operations(providers, 1).perform(key, SkiRequest.rsa(key.keyId(), bad)))
                .as("same secret, same ciphertext, another instance").isEqualTo(answer);
        assertThat(operations(providers, 2).perform(key, SkiRequest.rsa(key.keyId(), bad)))
                .as("another secret").isNotEqualTo(answer);
        assertThat(operations(providers, 1).perform(key, SkiRequest.rsa(key.keyId(), otherBad)))
                .as("another ciphertext").isNotEqualTo(answer);
        assertThat(operations(providers, 1).perform(otherKey, SkiRequest.rsa(otherKey.keyId(), badForOtherKey)))
                .as("another key").isNotEqualTo(answer).hasSize(48);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("providersAndSizes")
    void rawDecryptionIsTextbookRsa(TestProviders providers, KeyType type) throws Exception {
        CryptoOperations operations = operations(providers, 1);
        LoadedKey key = TestKeys.loaded(operations.provider(), type);
        RSAPrivateKey jdkKey = (RSAPrivateKey) TestKeys.pair(type).getPrivate();
        int k = JdkCrypto.modulusLength(TestKeys.publicKey(key));
        byte[] one = new byte[k];
        one[k - 1] = 1;
        byte[] random = JdkCrypto.rawPublic(TestKeys.publicKey(key), random(k - 1));

        for (byte[] ciphertext : List.of(one, random, JdkCrypto.encryptPkcs1(TestKeys.publicKey(key), random(48)))) {
            BigInteger expected = new BigInteger(1, ciphertext)
                    .modPow(jdkKey.getPrivateExponent(), jdkKey.getModulus());

            byte[] answer = operations.perform(key, SkiRequest.rsaRaw(key.keyId(), ciphertext));

            assertThat(answer).hasSize(k).isEqualTo(JdkCrypto.toBytes(expected, k));
        }
    }

    @ParameterizedTest
    @EnumSource(TestProviders.class)
    void inputsThatAreNoRsaCiphertextForTheKeyAreMalformed(TestProviders providers) throws Exception {
        CryptoOperations operations = operations(providers, 1);
        LoadedKey rsa = TestKeys.loaded(operations.provider(), KeyType.RSA_2048);
        byte[] modulus = JdkCrypto.toBytes(RsaDecryption.modulus(rsa), 256);
        byte[] valid = JdkCrypto.encryptPkcs1(TestKeys.publicKey(rsa), random(48));
        List<byte[]> inputs = List.of(Arrays.copyOf(valid, 255), Arrays.copyOf(valid, 257), new byte[0], modulus);

        for (byte[] input : inputs) {
            for (SkiRequest request : List.of(SkiRequest.rsa(rsa.keyId(), input),
                    SkiRequest.rsaRaw(rsa.keyId(), input))) {
                assertMalformed(operations, rsa, request, input);
            }
        }
        for (KeyType type : List.of(KeyType.EC_P256, KeyType.EC_P384, KeyType.ED25519)) {
            LoadedKey other = TestKeys.loaded(operations.provider(), type);
            assertMalformed(operations, other, SkiRequest.rsa(other.keyId(), valid), valid);
            assertMalformed(operations, other, SkiRequest.rsaRaw(other.keyId(), valid), valid);
        }
    }

    private static void assertMalformed(CryptoOperations operations, LoadedKey key, SkiRequest request, byte[] input) {
        assertThatThrownBy(() -> operations.perform(key, request))
                .isInstanceOfSatisfying(SkiException.class, e -> {
                    assertThat(e.error()).isEqualTo(SkiError.MALFORMED_REQUEST);
                    if (input.length > 0) {
                        assertThat(e.getMessage()).doesNotContainIgnoringCase(HexFormat.of().formatHex(input, 0, 8));
                    }
                });
    }

    private static CryptoOperations operations(TestProviders providers, int secretByte) {
        byte[] secret = new byte[32];
        Arrays.fill(secret, (byte) secretByte);
        return new CryptoOperations(providers.get(), secret);
    }

    /** {@code first second}, non-zero random padding, a zero separator, a random non-zero message. */
    static byte[] block(int k, int first, int second, int messageLength) {
        byte[] block = new byte[k];
        block[0] = (byte) first;
        block[1] = (byte) second;
        int separator = k - messageLength - 1;
        for (int i = 2; i < separator; i++) {
            block[i] = (byte) (1 + RANDOM.nextInt(255));
        }
        block[separator] = 0;
        for (int i = separator + 1; i < k; i++) {
            block[i] = (byte) (1 + RANDOM.nextInt(255)); // non-zero: no second separator by chance
        }
        return block;
    }

    private static byte[] zeroInPadding(byte[] block) {
        block[20] = 0;
        return block;
    }

    private static byte[] noSeparator(byte[] block) {
        for (int i = 2; i < block.length; i++) {
            block[i] = (byte) (1 + RANDOM.nextInt(255));
        }
        return block;
    }

    private static byte[] random(int length) {
        byte[] bytes = new byte[length];
        RANDOM.nextBytes(bytes);
        return bytes;
    }
}

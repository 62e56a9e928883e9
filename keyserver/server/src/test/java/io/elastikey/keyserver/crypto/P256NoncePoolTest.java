// P256NoncePoolTest -- signatures with nonces made ahead at idle priority verify, never reuse a nonce, go on when the pool is off, and are finished inline by the engine.
package io.elastikey.keyserver.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.elastikey.keyserver.keys.LoadedKey;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.ski.SignatureScheme;
import io.elastikey.protocol.ski.SkiRequest;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.MessageDigest;
import java.security.Signature;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PSSParameterSpec;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The pool is process-wide, so every assertion is on counters' changes across the test, and each test closes what it
 * acquired. Waits are for a condition (the idle-priority filler runs when a core is free), with a generous bound that
 * only a machine busy on both cores for minutes would reach; nothing here measures time.
 */
class P256NoncePoolTest {
    private static final Duration FILL_WAIT = Duration.ofMinutes(2);
    private static P256Native signer;

    @BeforeAll
    static void load() {
        P256Native.Loaded loaded = P256Native.load();
        assumeTrue(loaded.signer() != null, "libelastikey_p256_jni not loaded here: " + loaded.problem());
        signer = loaded.signer();
    }

    @Test
    void signaturesWithPooledNoncesVerifyAndNoNonceIsUsedTwice() throws Exception {
        KeyPair pair = TestKeys.pair(KeyType.EC_P256);
        P256ScalarKey key = P256Pkcs8.parse(pair.getPrivate().getEncoded());
        P256NoncePool.Stats before = P256NoncePool.stats();
        Set<BigInteger> rs = new HashSet<>();
        try (P256NoncePool.Handle pool = P256NoncePool.acquire(500)) {
            awaitStats(s -> s.pooled() >= 500);
            // Two threads at once, as the crypto workers do, so takers race for the same slots.
            ExecutorService threads = Executors.newFixedThreadPool(2);
            try {
                List<Future<List<byte[]>>> batches = new ArrayList<>();
                for (int t = 0; t < 2; t++) {
                    int thread = t;
                    batches.add(threads.submit(() -> signMany(key, "thread " + thread, 400)));
                }
                for (int t = 0; t < 2; t++) {
                    List<byte[]> signatures = batches.get(t).get();
                    for (int i = 0; i < signatures.size(); i++) {
                        assertThat(verifies(pair, "thread " + t + " message " + i, signatures.get(i)))
                                .as("thread %d signature %d", t, i).isTrue();
                        assertThat(rs.add(rOf(signatures.get(i)))).as("r of thread %d signature %d is new", t, i)
                                .isTrue();
                    }
                }
            } finally {
                threads.shutdownNow();
            }
        }
        P256NoncePool.Stats after = P256NoncePool.stats();
        assertThat(rs).hasSize(800);
        assertThat(after.taken() - before.taken()).as("signatures that took a pooled nonce").isGreaterThanOrEqualTo(500);
        assertThat(after.taken() + after.missed() - before.taken() - before.missed()).isEqualTo(800);
    }

    @Test
    void whenTheLastUserClosesThePoolIsEmptiedAndSignaturesMakeTheirOwnNonces() throws Exception {
        KeyPair pair = TestKeys.pair(KeyType.EC_P256);
        P256ScalarKey key = P256Pkcs8.parse(pair.getPrivate().getEncoded());
        P256NoncePool.Handle first = P256NoncePool.acquire(200);
        P256NoncePool.Handle second = P256NoncePool.acquire(200);
        awaitStats(s -> s.pooled() >= 200);
        first.close();
        first.close(); // idempotent: must not release the second user's claim
        long madeBefore = P256NoncePool.stats().made();
        // A whole pool's worth: the filler refills once the pool lacks a batch (64), not after every signature.
        signMany(key, "drain", 200);
        awaitStats(s -> s.made() >= madeBefore + 100); // the filler still runs for the second user and refills
        second.close();
        assertThat(P256NoncePool.stats().pooled()).as("pairs left in memory after the last close").isZero();

        P256NoncePool.Stats before = P256NoncePool.stats();
        List<byte[]> signatures = signMany(key, "no pool", 50);
        for (int i = 0; i < signatures.size(); i++) {
            assertThat(verifies(pair, "no pool message " + i, signatures.get(i))).isTrue();
        }
        P256NoncePool.Stats after = P256NoncePool.stats();
        assertThat(after.missed() - before.missed()).isEqualTo(50);
        assertThat(after.taken()).isEqualTo(before.taken());
        assertThat(after.made()).isEqualTo(before.made());
    }

    @Test
    void aPooledOnlySignatureTakesANonceMadeAheadOrSignsNothing() throws Exception {
        KeyPair pair = TestKeys.pair(KeyType.EC_P256);
        P256ScalarKey key = P256Pkcs8.parse(pair.getPrivate().getEncoded());
        byte[] digest = MessageDigest.getInstance("SHA-256").digest("pooled only".getBytes(StandardCharsets.US_ASCII));

        P256NoncePool.Stats closed = P256NoncePool.stats();
        assertThat(signer.signWithPooledNonce(key, digest, digest.length)).as("no pool, no signature").isNull();
        assertThat(P256NoncePool.stats().missed()).as("a refusal is not a miss: the worker that signs counts it")
                .isEqualTo(closed.missed());

        try (P256NoncePool.Handle pool = P256NoncePool.acquire(100)) {
            awaitStats(s -> s.pooled() >= 100);
            P256NoncePool.Stats before = P256NoncePool.stats();
            byte[] signature = signer.signWithPooledNonce(key, digest, digest.length);

            assertThat(signature).isNotNull();
            assertThat(verifies(pair, "pooled only", signature)).isTrue();
            assertThat(P256NoncePool.stats().taken() - before.taken()).isEqualTo(1);
        }
    }

    @Test
    void theEngineFinishesSignaturesWithNoncesMadeAheadOnTheSubmittingThread() throws Exception {
        CryptoOperations operations = new CryptoOperations(TestProviders.NATIVE_P256.get(), new byte[32]);
        LoadedKey p256 = TestKeys.loaded(operations.provider(), KeyType.EC_P256);
        LoadedKey rsa = TestKeys.loaded(operations.provider(), KeyType.RSA_2048);
        byte[] content = "server key exchange".getBytes(StandardCharsets.US_ASCII);
        long far = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        try (P256NoncePool.Handle pool = P256NoncePool.acquire(200);
             CryptoEngine engine = new CryptoEngine(operations, CryptoEngineConfig.defaults())) {
            awaitStats(s -> s.pooled() >= 100);
            for (int i = 0; i < 50; i++) {
                CompletableFuture<byte[]> future = engine.submit(p256, SkiRequest.sign(p256.keyId(),
                        SignatureScheme.ECDSA_SECP256R1_SHA256, content), far);
                assertThat(future).as("signature %d done before submit returned", i).isDone();
                assertThat(JdkCrypto.verify("SHA256withECDSA", TestKeys.publicKey(p256), content, future.get()))
                        .isTrue();
            }
            CompletableFuture<byte[]> rsaFuture = engine.submit(rsa, SkiRequest.sign(rsa.keyId(),
                    SignatureScheme.RSA_PSS_RSAE_SHA256, content), far);
            PSSParameterSpec pss = new PSSParameterSpec("SHA-256", "MGF1", MGF1ParameterSpec.SHA256, 32, 1);
            assertThat(JdkCrypto.verify("RSASSA-PSS", pss, TestKeys.publicKey(rsa), content,
                    rsaFuture.get(10, TimeUnit.SECONDS))).isTrue();

            assertThat(engine.inlinedCount()).as("P-256 signatures done inline; RSA went to a worker").isEqualTo(50);
            assertThat(engine.completedCount()).isEqualTo(51);
        }
    }

    private static List<byte[]> signMany(P256ScalarKey key, String prefix, int count) throws Exception {
        List<byte[]> signatures = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest((prefix + " message " + i).getBytes(StandardCharsets.US_ASCII));
            signatures.add(signer.sign(key, digest, digest.length));
        }
        return signatures;
    }

    private static boolean verifies(KeyPair pair, String message, byte[] signature) throws Exception {
        Signature verify = Signature.getInstance("SHA256withECDSA", "SunEC");
        verify.initVerify(pair.getPublic());
        verify.update(message.getBytes(StandardCharsets.US_ASCII));
        return verify.verify(signature);
    }

    /** r of a DER ECDSA-Sig-Value: SEQUENCE { INTEGER r, INTEGER s }, short lengths (P-256 needs no more). */
    private static BigInteger rOf(byte[] der) {
        assertThat(der[0]).isEqualTo((byte) 0x30);
        assertThat(der[2]).isEqualTo((byte) 0x02);
        int length = der[3];
        return new BigInteger(1, Arrays.copyOfRange(der, 4, 4 + length));
    }

    private static void awaitStats(Predicate<P256NoncePool.Stats> condition) throws InterruptedException {
        long deadline = System.nanoTime() + FILL_WAIT.toNanos();
        while (!condition.test(P256NoncePool.stats())) {
            assertThat(System.nanoTime()).as("pool state %s not reached", P256NoncePool.stats()).isLessThan(deadline);
            Thread.sleep(10);
        }
    }
}

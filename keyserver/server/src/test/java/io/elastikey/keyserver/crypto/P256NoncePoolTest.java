// P256NoncePoolTest -- signatures with nonces made ahead at idle priority verify, never reuse a nonce, and go on when the pool is off.
package io.elastikey.keyserver.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.elastikey.protocol.pki.KeyType;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.MessageDigest;
import java.security.Signature;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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
        signMany(key, "drain", 100);
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

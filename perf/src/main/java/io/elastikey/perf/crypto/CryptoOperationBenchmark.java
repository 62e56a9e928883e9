// CryptoOperationBenchmark -- private-key operations per second under ACCP and the JDK's providers.
//
// Run (from the reactor root, after ./mvnw -B -q -pl perf -am package -DskipTests):
//   java -cp "perf/target/classes:perf/target/lib/*" io.elastikey.perf.Benchmarks CryptoOperationBenchmark
// Quick look:
//   java -cp "perf/target/classes:perf/target/lib/*" io.elastikey.perf.Benchmarks CryptoOperationBenchmark \
//       -f 1 -wi 1 -w 2s -i 3 -r 3s
package io.elastikey.perf.crypto;

import io.elastikey.keyserver.crypto.CryptoOperations;
import io.elastikey.keyserver.crypto.CryptoProvider;
import io.elastikey.keyserver.crypto.ProviderChoice;
import io.elastikey.keyserver.keys.LoadedKey;
import io.elastikey.protocol.ski.SkiRequest;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Measures {@link CryptoOperations#perform} in operations per second: the work a key server's
 * crypto workers do per request, without network, JSON or queueing. With one thread it is the
 * per-core rate; with as many threads as cores it is the ceiling the whole server can reach on
 * this machine for that operation.
 *
 * <p>Each trial selects its provider in a fresh fork ({@code accp} fails when ACCP cannot load
 * here), parses {@code keys} keys of the workload's type into that provider's key objects, and
 * takes them in turn, so the per-key setup a server with many keys pays ({@code initSign} or
 * {@code Cipher.init} with another key) is in the figure.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 5)
public class CryptoOperationBenchmark {

    /** {@code native}: ACCP with P-256 keys signed by the key server's native signer, as the key server runs. */
    @Param({"accp", "jdk", "native"})
    String provider;

    @Param({"RSA_2048_DECRYPT", "RSA_4096_DECRYPT", "ECDSA_P256_SIGN", "ED25519_SIGN"})
    CryptoWorkload workload;

    @Param("4")
    int keys;

    CryptoOperations operations;
    LoadedKey[] loaded;
    SkiRequest[] requests;

    @Setup(Level.Trial)
    public void setUp() throws GeneralSecurityException {
        CryptoProvider selected = provider.equals("native") ? CryptoProvider.select(ProviderChoice.AUTO, true)
                : CryptoProvider.select(ProviderChoice.parse(provider));
        System.out.println("\ncrypto provider: " + selected.description());
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        operations = new CryptoOperations(selected, secret);
        loaded = new LoadedKey[keys];
        requests = new SkiRequest[keys];
        for (int i = 0; i < keys; i++) {
            KeyPair pair = workload.keyType().generate();
            String keyId = HexFormat.of().formatHex(pair.getPublic().getEncoded(), 0, 16) + i;
            loaded[i] = new LoadedKey(keyId, workload.keyType(),
                    selected.keyParser().parse(workload.keyType(), pair.getPrivate().getEncoded()),
                    Set.of(), List.of());
            requests[i] = workload.request(keyId, pair.getPublic());
            operations.perform(loaded[i], requests[i]); // fail here, not mid-measurement
        }
    }

    /** One thread's position in the key ring. */
    @State(Scope.Thread)
    public static class Cursor {
        int next;
    }

    @Benchmark
    @Threads(1)
    public byte[] oneThread(Cursor cursor) {
        return perform(cursor);
    }

    @Benchmark
    @Threads(2)
    public byte[] twoThreads(Cursor cursor) {
        return perform(cursor);
    }

    private byte[] perform(Cursor cursor) {
        int i = cursor.next;
        cursor.next = i + 1 == keys ? 0 : i + 1;
        return operations.perform(loaded[i], requests[i]);
    }
}

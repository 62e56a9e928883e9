/**
 * The crypto engine: every private-key operation the key server performs, the JCA providers it
 * performs them with, and the worker pool that keeps them off the network threads.
 *
 * <h2>What the server calls</h2>
 * <pre>{@code
 * CryptoProvider provider = CryptoProvider.select(ProviderChoice.fromSystemProperty(configuredChoice));
 * log.info("crypto provider: {}", provider.description());
 * PrivateKeyParser parser = provider.keyParser();              // given to the KeyRepository
 * CryptoOperations operations = new CryptoOperations(provider, rejectionSecret32);
 * CryptoEngine engine = new CryptoEngine(operations, CryptoEngineConfig.defaults());
 * new CryptoMetrics(engine, provider).bindTo(registry);
 * engine.submit(loadedKey, skiRequest, deadlineNanos, ctx.executor())   // CompletableFuture<byte[]>
 * }</pre>
 *
 * <h2>Why it is built this way</h2>
 * <p><b>Provider.</b> Amazon Corretto Crypto Provider (AWS-LC underneath) signs ECDSA P-256
 * many times faster than the JDK and decrypts RSA about twice as fast, so it is used wherever
 * its native library loads; the JDK's providers are the fallback, and can be forced, so every
 * test runs under both ({@link io.elastikey.keyserver.crypto.CryptoProvider}). Keys are parsed
 * once into the provider's own key objects; a foreign key object would be converted on every
 * operation.
 *
 * <p><b>JCA objects per thread.</b> {@code Signature}, {@code Cipher}, {@code MessageDigest} and
 * {@code Mac} instances are costly to make and unsafe to share, so each thread keeps its own,
 * keyed by algorithm ({@code JcaObjects}); the same holds for the parser's key factories.
 *
 * <p><b>No padding oracle.</b> {@code RSA} decryption runs the raw RSA operation and checks the
 * PKCS#1 v1.5 block in constant time for the one shape TLS allows; a bad block is answered with
 * a substitute derived from the ciphertext by HMAC under a server secret, computed for every
 * request and chosen by mask ({@code Pkcs1}, {@code ImplicitRejection}). What is not in our
 * hands: whether the provider's modular exponentiation is constant time (AWS-LC's is; the JDK's
 * BigInteger arithmetic is blinded but not constant time).
 *
 * <p><b>Bounded work.</b> A fixed pool with a bounded queue and per-request deadlines
 * ({@link io.elastikey.keyserver.crypto.CryptoEngine}): under overload the server answers
 * {@code overloaded} quickly rather than slowly answering everything late.
 *
 * <p>Nothing here logs, and no exception message, metric or {@code toString} carries key
 * material, inputs or outputs.
 */
package io.elastikey.keyserver.crypto;

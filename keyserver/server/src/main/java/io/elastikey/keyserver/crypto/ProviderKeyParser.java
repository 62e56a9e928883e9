package io.elastikey.keyserver.crypto;

import io.elastikey.keyserver.keys.PrivateKeyParser;
import io.elastikey.protocol.pki.KeyType;

import java.math.BigInteger;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.interfaces.ECKey;
import java.security.interfaces.RSAKey;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.RSAPrivateCrtKeySpec;
import java.util.HashMap;
import java.util.Map;

/**
 * Parses PKCS#8 with the {@code KeyFactory} of the selected provider, so each key becomes that
 * provider's own key object once, when loaded. Handing a provider a foreign key object instead
 * makes it convert the key on every {@code initSign}: ACCP re-encodes and re-parses it.
 *
 * <p>Where the provider has no factory for an algorithm the JDK's is used (see
 * {@link CryptoProvider}); a foreign key still works, at the cost of that conversion.
 *
 * <p>The parsed key is checked against the declared {@link KeyType} (RSA modulus size, EC
 * curve), so a record whose type is wrong fails here and not later, mid-handshake.
 *
 * <p>RSA keys take a shorter road into ACCP: the JDK decodes the PKCS#8 into its CRT numbers,
 * {@link RsaCrtCheck} checks that they belong together, and ACCP builds its key from them. Handing
 * ACCP the PKCS#8 itself costs about 115 µs per RSA-2048 key here, nearly all of it the native
 * library's full key check; this road costs about 15 µs (docs/benchmarks.md, KeyLoadBenchmark),
 * which matters because parsing is the parsed-key cache's miss path.
 *
 * <p>P-256 keys become {@link P256ScalarKey}s when the provider signs them natively ({@link P256Native}): the
 * scalar read from the DER, no provider involved.
 *
 * <p>Thread-safe: {@code KeyFactory} objects are kept per thread (ACCP's internal Ed25519
 * factory is one shared object, as ACCP itself shares it).
 */
final class ProviderKeyParser implements PrivateKeyParser {
    private static final BigInteger P256_ORDER = namedCurve("secp256r1").getOrder();
    private static final BigInteger P384_ORDER = namedCurve("secp384r1").getOrder();

    private final CryptoProvider provider;
    private final ThreadLocal<Map<String, KeyFactory>> factories = ThreadLocal.withInitial(() -> new HashMap<>(4));
    private final ThreadLocal<KeyFactory> jdkRsa = ThreadLocal.withInitial(ProviderKeyParser::jdkRsaFactory);

    ProviderKeyParser(CryptoProvider provider) {
        this.provider = provider;
    }

    @Override
    public PrivateKey parse(KeyType type, byte[] pkcs8) throws GeneralSecurityException {
        if (type == KeyType.EC_P256 && provider.signsP256Natively()) {
            return P256Pkcs8.parse(pkcs8);
        }
        PrivateKey key = provider.isAccp() && type.keyAlgorithm().equals("RSA")
                ? rsaThroughCrt(pkcs8)
                : factory(type.keyAlgorithm()).generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
        if (!matches(type, key)) {
            throw new InvalidKeySpecException("the PKCS#8 key is not a " + type.cliName() + " key");
        }
        return key;
    }

    @Override
    public PrivateKey fromCompact(KeyType type, byte[] bytes) throws GeneralSecurityException {
        if (type != KeyType.EC_P256 || !provider.signsP256Natively()) {
            return PrivateKeyParser.super.fromCompact(type, bytes);
        }
        return new P256ScalarKey(bytes);
    }

    private PrivateKey rsaThroughCrt(byte[] pkcs8) throws GeneralSecurityException {
        PrivateKey decoded = jdkRsa.get().generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
        if (!(decoded instanceof RSAPrivateCrtKey crt)) {
            throw new InvalidKeySpecException("the PKCS#8 RSA key has no CRT parameters");
        }
        RsaCrtCheck.check(crt);
        return factory("RSA").generatePrivate(new RSAPrivateCrtKeySpec(crt.getModulus(), crt.getPublicExponent(),
                crt.getPrivateExponent(), crt.getPrimeP(), crt.getPrimeQ(), crt.getPrimeExponentP(),
                crt.getPrimeExponentQ(), crt.getCrtCoefficient()));
    }

    private KeyFactory factory(String algorithm) throws GeneralSecurityException {
        Map<String, KeyFactory> mine = factories.get();
        KeyFactory factory = mine.get(algorithm);
        if (factory == null) {
            factory = provider.keyFactory(algorithm);
            mine.put(algorithm, factory);
        }
        return factory;
    }

    private static KeyFactory jdkRsaFactory() {
        try {
            return KeyFactory.getInstance("RSA", "SunRsaSign");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK has no SunRsaSign RSA key factory", e);
        }
    }

    private static boolean matches(KeyType type, PrivateKey key) {
        return switch (type) {
            case RSA_2048 -> rsaBits(key) == 2048;
            case RSA_3072 -> rsaBits(key) == 3072;
            case RSA_4096 -> rsaBits(key) == 4096;
            case EC_P256 -> P256_ORDER.equals(ecOrder(key));
            case EC_P384 -> P384_ORDER.equals(ecOrder(key));
            case ED25519 -> "Ed25519".equalsIgnoreCase(key.getAlgorithm())
                    || "EdDSA".equalsIgnoreCase(key.getAlgorithm());
        };
    }

    private static int rsaBits(PrivateKey key) {
        return key instanceof RSAKey rsa ? rsa.getModulus().bitLength() : -1;
    }

    /** The group order names the curve: two curves of one size (P-256, secp256k1) differ in it. */
    private static BigInteger ecOrder(PrivateKey key) {
        return key instanceof ECKey ec ? ec.getParams().getOrder() : null;
    }

    /** The JDK's parameters of a named curve ({@code secp256r1}): the order names the curve, P256ScalarKey's params. */
    static ECParameterSpec namedCurve(String curve) {
        try {
            AlgorithmParameters parameters = AlgorithmParameters.getInstance("EC");
            parameters.init(new ECGenParameterSpec(curve));
            return parameters.getParameterSpec(ECParameterSpec.class);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK does not know curve " + curve, e);
        }
    }
}

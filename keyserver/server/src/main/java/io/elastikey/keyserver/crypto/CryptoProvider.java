package io.elastikey.keyserver.crypto;

import io.elastikey.keyserver.keys.PrivateKeyParser;
import io.elastikey.protocol.pki.KeyType;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.Provider;
import java.security.Security;
import java.security.Signature;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.NoSuchPaddingException;

/**
 * The JCA providers the crypto engine takes its objects from: Amazon Corretto Crypto Provider
 * first when it is selected, then the JDK's built-in providers, per algorithm.
 *
 * <p>Why per algorithm: ACCP does not offer everything (version 2.5 has no {@code NONEwithRSA},
 * for one); such an algorithm comes from the JDK while the rest stays on ACCP.
 * {@link #providerName} says who serves what. One exception is made by hand: ACCP 2.5 signs
 * with Ed25519 but registers no Ed25519 {@code KeyFactory}, so its internal one is used for
 * our keys when it can be reached ({@link AccpLoader#ed25519KeyFactory}), the JDK's otherwise.
 *
 * <p>Why name the JDK providers instead of asking {@code getInstance(algorithm)}: once ACCP is
 * installed it is first in the JVM-wide list, so "the default" would be ACCP again. A JDK
 * selection therefore only ever uses providers that live in the JDK's own modules.
 *
 * <p>Instances are immutable and thread-safe; the JCA objects they create are not, which is why
 * callers keep them per thread ({@link JcaObjects}).
 */
public final class CryptoProvider {
    private static final String JDK_NAME = "JDK";

    private static final String ED25519 = "Ed25519";

    private final Provider accp;
    private final KeyFactory accpEd25519Keys;
    private final String name;
    private final String version;
    private final String fallbackReason;
    private final List<Provider> candidates;
    private final P256Native p256;
    private final String p256Problem;

    private CryptoProvider(Provider accp, KeyFactory accpEd25519Keys, String name, String version,
                           String fallbackReason, P256Native.Loaded p256) {
        this.p256 = p256 == null ? null : p256.signer();
        this.p256Problem = p256 == null ? null : p256.problem();
        this.accp = accp;
        this.accpEd25519Keys = accpEd25519Keys;
        this.name = name;
        this.version = version;
        this.fallbackReason = fallbackReason;
        List<Provider> list = new ArrayList<>();
        if (accp != null) {
            list.add(accp);
        }
        list.addAll(jdkProviders());
        this.candidates = List.copyOf(list);
    }

    /**
     * Selects the providers for {@code choice}; for {@link ProviderChoice#AUTO} and
     * {@link ProviderChoice#ACCP} this loads, self-tests and installs ACCP.
     *
     * @throws IllegalStateException when {@link ProviderChoice#ACCP} is asked for and ACCP cannot be loaded
     */
    public static CryptoProvider select(ProviderChoice choice) {
        return select(choice, false);
    }

    /**
     * {@link #select(ProviderChoice)}, and with {@code nativeP256} P-256 keys parsed into {@link P256ScalarKey}s and
     * signed by {@link P256Native} when its library loads (the provider's key objects otherwise; {@link #description}
     * says which and why). The key server's default: a P-256 key then loads without a scalar multiplication and takes
     * 32 bytes in the parsed-key cache.
     */
    public static CryptoProvider select(ProviderChoice choice, boolean nativeP256) {
        P256Native.Loaded p256 = nativeP256 ? P256Native.load() : null;
        if (choice == ProviderChoice.JDK) {
            return new CryptoProvider(null, null, JDK_NAME, jdkVersion(), null, p256);
        }
        AccpLoader.Result accp = AccpLoader.load();
        if (accp.loaded()) {
            return new CryptoProvider(accp.provider(), accp.ed25519Keys(), accp.provider().getName(), accp.version(),
                    null, p256);
        }
        if (choice == ProviderChoice.ACCP) {
            throw new IllegalStateException("crypto provider accp was required but is unavailable: " + accp.problem());
        }
        return new CryptoProvider(null, null, JDK_NAME, jdkVersion(), accp.problem(), p256);
    }

    /** Selects as {@value ProviderChoice#SYSTEM_PROPERTY} says, {@link ProviderChoice#AUTO} when it is unset. */
    public static CryptoProvider fromSystemProperty() {
        return select(ProviderChoice.fromSystemProperty(ProviderChoice.AUTO));
    }

    /** The JDK's built-in providers only. */
    public static CryptoProvider jdk() {
        return new CryptoProvider(null, null, JDK_NAME, jdkVersion(), null, null);
    }

    /** {@code AmazonCorrettoCryptoProvider}, or {@code JDK}: the label of the provider metric. */
    public String name() {
        return name;
    }

    /** ACCP's version (e.g. {@code 2.5.0}), or the Java version for the JDK's providers. */
    public String version() {
        return version;
    }

    public boolean isAccp() {
        return accp != null;
    }

    /** The native P-256 signer, when it was asked for and loaded. */
    Optional<P256Native> p256() {
        return Optional.ofNullable(p256);
    }

    /**
     * Starts keeping {@code target} P-256 nonces precomputed at idle priority ({@link P256NoncePool}) when P-256 keys
     * are signed natively and {@code target} is positive; closing the handle stops it. Otherwise a handle that does
     * nothing.
     */
    public P256NoncePool.Handle startP256Nonces(int target) {
        return p256 != null && target > 0 ? P256NoncePool.acquire(target) : () -> { };
    }

    /** The nonce pool's counters; zeros when P-256 is not signed natively. */
    public P256NoncePool.Stats p256NonceStats() {
        return p256 != null ? P256NoncePool.stats() : P256NoncePool.Stats.NONE;
    }

    /** Whether P-256 keys are parsed into {@link P256ScalarKey}s and signed natively. */
    public boolean signsP256Natively() {
        return p256 != null;
    }

    /** Why {@link ProviderChoice#AUTO} ended on the JDK's providers, if it did. */
    public Optional<String> fallbackReason() {
        return Optional.ofNullable(fallbackReason);
    }

    /** The parser that turns PKCS#8 into this selection's own key objects. */
    public PrivateKeyParser keyParser() {
        return new ProviderKeyParser(this);
    }

    /**
     * One line for the start-up log: name, version, the provider of each key type's key objects,
     * and why ACCP is not in use when it is not.
     */
    public String description() {
        String keys = Arrays.stream(KeyType.values())
                .map(type -> type.cliName() + "=" + (type == KeyType.EC_P256 && p256 != null ? "native "
                        + p256.version() : providerName("KeyFactory", type.keyAlgorithm())))
                .collect(Collectors.joining(", "));
        return name + " " + version + " (keys: " + keys + ")"
                + (fallbackReason == null ? "" : "; ACCP not used: " + fallbackReason)
                + (p256Problem == null ? "" : "; P-256 not signed natively: " + p256Problem);
    }

    @Override
    public String toString() {
        return name + " " + version;
    }

    /** The name of the provider that serves {@code type}/{@code algorithm}, or {@code "none"}. */
    public String providerName(String type, String algorithm) {
        if (usesAccpEd25519Keys(type, algorithm)) {
            return accp.getName();
        }
        for (Provider p : candidates) {
            if (p.getService(type, algorithm) != null) {
                return p.getName();
            }
        }
        return "none";
    }

    Signature signature(String algorithm) throws NoSuchAlgorithmException {
        return first(algorithm, Signature::getInstance);
    }

    Cipher cipher(String transformation) throws NoSuchAlgorithmException {
        return first(transformation, Cipher::getInstance);
    }

    MessageDigest messageDigest(String algorithm) throws NoSuchAlgorithmException {
        return first(algorithm, MessageDigest::getInstance);
    }

    Mac mac(String algorithm) throws NoSuchAlgorithmException {
        return first(algorithm, Mac::getInstance);
    }

    /** The key factory for {@code algorithm}; may be shared between threads only for ACCP's Ed25519 one. */
    KeyFactory keyFactory(String algorithm) throws NoSuchAlgorithmException {
        return usesAccpEd25519Keys("KeyFactory", algorithm) ? accpEd25519Keys
                : first(algorithm, KeyFactory::getInstance);
    }

    private boolean usesAccpEd25519Keys(String type, String algorithm) {
        return accpEd25519Keys != null && "KeyFactory".equals(type) && ED25519.equalsIgnoreCase(algorithm)
                && accp.getService(type, algorithm) == null;
    }

    /** How a JCA class makes an instance from a given provider. */
    @FunctionalInterface
    private interface Factory<T> {
        T create(String algorithm, Provider provider) throws GeneralSecurityException;
    }

    private <T> T first(String algorithm, Factory<T> factory) throws NoSuchAlgorithmException {
        for (Provider provider : candidates) {
            try {
                return factory.create(algorithm, provider);
            } catch (NoSuchAlgorithmException | NoSuchPaddingException e) {
                // not offered by this one: try the next
            } catch (GeneralSecurityException e) {
                throw new NoSuchAlgorithmException(algorithm + " from " + provider.getName() + " failed", e);
            }
        }
        throw new NoSuchAlgorithmException(algorithm + " is offered by none of "
                + candidates.stream().map(Provider::getName).collect(Collectors.joining(", ")));
    }

    /** The installed providers that belong to the JDK itself (modules java.* and jdk.*), in priority order. */
    private static List<Provider> jdkProviders() {
        List<Provider> jdk = new ArrayList<>();
        for (Provider p : Security.getProviders()) {
            Module module = p.getClass().getModule();
            String moduleName = module.isNamed() ? module.getName() : "";
            if (moduleName.startsWith("java.") || moduleName.startsWith("jdk.")) {
                jdk.add(p);
            }
        }
        return jdk;
    }

    private static String jdkVersion() {
        return System.getProperty("java.version");
    }
}

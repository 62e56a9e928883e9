package io.elastikey.keyserver.crypto;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Provider;
import java.security.spec.PKCS8EncodedKeySpec;

/**
 * Loads, checks and installs Amazon Corretto Crypto Provider, or says why it could not.
 *
 * <p>ACCP is reached by reflection rather than imported: its jar is a per-architecture build
 * dependency (Linux x86_64 and aarch64 only), and this module must still compile and run, on
 * the JDK's providers, where no such jar exists. Reflection is used once, at start-up.
 *
 * <p>The checks follow ACCP's own advice: the class can load while its native library does not
 * ({@code getLoadingError()} then says why), and {@code assertHealthy()} runs the self-tests.
 * Only then is {@code install()} called, which puts ACCP first in the JVM's provider list so
 * that everything else in the process (JSSE, Netty's JDK fallback) benefits too.
 */
final class AccpLoader {
    static final String CLASS_NAME = "com.amazon.corretto.crypto.provider.AmazonCorrettoCryptoProvider";

    /**
     * ACCP installed and healthy ({@code provider} set), or why not ({@code problem} set).
     * {@code ed25519Keys} is ACCP's Ed25519 key factory when it could be had (see
     * {@link #ed25519KeyFactory}), else {@code null}.
     */
    record Result(Provider provider, String version, KeyFactory ed25519Keys, String problem) {
        boolean loaded() {
            return provider != null;
        }
    }

    private AccpLoader() {
    }

    static Result load() {
        Class<?> accp;
        try {
            accp = Class.forName(CLASS_NAME);
        } catch (ClassNotFoundException e) {
            return failed("ACCP is not on the class path (it ships for Linux x86_64 and aarch64 only)");
        } catch (LinkageError e) {
            return failed("ACCP could not be loaded: " + e);
        }
        try {
            Provider instance = (Provider) accp.getField("INSTANCE").get(null);
            Object loadingError = accp.getMethod("getLoadingError").invoke(instance);
            if (loadingError != null) {
                return failed("ACCP's native library did not load: " + loadingError);
            }
            accp.getMethod("assertHealthy").invoke(instance);
            accp.getMethod("install").invoke(null);
            String version = (String) accp.getMethod("getVersionStr").invoke(instance);
            return new Result(instance, version, ed25519KeyFactory(accp, instance), null);
        } catch (InvocationTargetException e) {
            return failed("ACCP failed its health check: " + e.getCause());
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return failed("ACCP could not be initialised: " + e);
        }
    }

    /**
     * ACCP's Ed25519 {@code KeyFactory}, which ACCP 2.5 uses internally but registers only when
     * started with {@code -Dcom.amazon.corretto.crypto.provider.registerEdKeyFactory=true}. That
     * property is JVM-wide: every {@code KeyFactory.getInstance("Ed25519")} would then answer
     * keys that are not {@code EdECKey}s, which other code (JSSE, Bouncy Castle) may not accept.
     * This reaches the same factory for our keys only, through ACCP's package-private
     * {@code getKeyFactory(String)}. Worth it: ACCP's signer converts a JDK Ed25519 key whenever
     * a thread switches keys, which halves its Ed25519 rate (measured by
     * {@code CryptoOperationBenchmark}, about 50,000 against 100,000 signatures per second).
     *
     * @return the factory, or {@code null} when this ACCP version has no such method or the
     *         factory does not parse a key, in which case the JDK's factory is used
     */
    static KeyFactory ed25519KeyFactory(Class<?> accp, Provider instance) {
        try {
            Method method = accp.getDeclaredMethod("getKeyFactory", String.class);
            method.setAccessible(true);
            KeyFactory factory = (KeyFactory) method.invoke(instance, "EdDSA");
            KeyPair probe = KeyPairGenerator.getInstance("Ed25519", instance).generateKeyPair();
            factory.generatePrivate(new PKCS8EncodedKeySpec(probe.getPrivate().getEncoded()));
            return factory;
        } catch (ReflectiveOperationException | RuntimeException | GeneralSecurityException e) {
            return null;
        }
    }

    private static Result failed(String problem) {
        return new Result(null, null, null, problem);
    }
}

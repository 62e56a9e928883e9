package io.elastikey.keyserver.crypto;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The provider selections every operation test runs under: ACCP, the JDK's providers, and the key server's default
 * (ACCP where it loads, with P-256 keys signed by {@link P256Native}). ACCP is skipped, not failed, where its jar or
 * native library is absent; {@link CryptoProviderTest} fails instead on the platforms whose build ships ACCP, so a
 * skip there cannot go unnoticed. The native P-256 signer is skipped where the build made no library (no OpenSSL
 * headers), and {@link P256NativeTest} fails where it made one that does not load.
 */
enum TestProviders {
    ACCP, JDK, NATIVE_P256;

    private static final Map<TestProviders, CryptoProvider> SELECTED = new ConcurrentHashMap<>();

    /** The selection, or a skipped test when ACCP cannot be loaded here. */
    CryptoProvider get() {
        CryptoProvider provider = SELECTED.computeIfAbsent(this, p -> switch (p) {
            case JDK -> CryptoProvider.jdk();
            case ACCP -> CryptoProvider.select(ProviderChoice.AUTO);
            case NATIVE_P256 -> CryptoProvider.select(ProviderChoice.AUTO, true);
        });
        assumeTrue(this == JDK || provider.isAccp(), () -> "ACCP is unavailable here: "
                + provider.fallbackReason().orElse("?"));
        assumeTrue(this != NATIVE_P256 || provider.signsP256Natively(), () -> "the native P-256 signer is "
                + "unavailable here: " + provider.description());
        return provider;
    }

    /** Whether this build ships ACCP for this machine (see the profiles of keyserver/server/pom.xml). */
    static boolean accpExpectedHere() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch");
        return os.contains("linux") && ("amd64".equals(arch) || "aarch64".equals(arch));
    }
}

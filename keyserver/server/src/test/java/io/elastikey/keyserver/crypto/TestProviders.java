package io.elastikey.keyserver.crypto;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The two provider selections every operation test runs under. ACCP is skipped, not failed,
 * where its jar or native library is absent; {@link CryptoProviderTest} fails instead on the
 * platforms whose build ships ACCP, so a skip there cannot go unnoticed.
 */
enum TestProviders {
    ACCP, JDK;

    private static final Map<TestProviders, CryptoProvider> SELECTED = new ConcurrentHashMap<>();

    /** The selection, or a skipped test when ACCP cannot be loaded here. */
    CryptoProvider get() {
        CryptoProvider provider = SELECTED.computeIfAbsent(this, p -> p == JDK ? CryptoProvider.jdk()
                : CryptoProvider.select(ProviderChoice.AUTO));
        assumeTrue(this == JDK || provider.isAccp(), () -> "ACCP is unavailable here: "
                + provider.fallbackReason().orElse("?"));
        return provider;
    }

    /** Whether this build ships ACCP for this machine (see the profiles of keyserver/server/pom.xml). */
    static boolean accpExpectedHere() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch");
        return os.contains("linux") && ("amd64".equals(arch) || "aarch64".equals(arch));
    }
}

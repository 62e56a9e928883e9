package io.elastikey.keyserver.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class CryptoProviderTest {

    @Test
    void accpIsSelectedWhereTheBuildShipsIt() {
        assumeTrue(TestProviders.accpExpectedHere(), "this build ships ACCP for Linux x86_64 and aarch64 only");

        CryptoProvider provider = CryptoProvider.select(ProviderChoice.AUTO);

        assertThat(provider.isAccp()).as(provider.fallbackReason().orElse("")).isTrue();
        assertThat(provider.name()).isEqualTo("AmazonCorrettoCryptoProvider");
        assertThat(provider.version()).matches("\\d+\\.\\d+\\.\\d+.*");
        assertThat(provider.fallbackReason()).isEmpty();
        assertThat(provider.providerName("Signature", "SHA256withECDSA")).isEqualTo("AmazonCorrettoCryptoProvider");
        assertThat(provider.description()).startsWith("AmazonCorrettoCryptoProvider ")
                .contains("ec256=AmazonCorrettoCryptoProvider", "ed25519=AmazonCorrettoCryptoProvider");
    }

    @Test
    void jdkSelectionNeverUsesAccpEvenOnceInstalled() {
        CryptoProvider.select(ProviderChoice.AUTO); // installs ACCP first in the JVM when it can

        CryptoProvider jdk = CryptoProvider.select(ProviderChoice.JDK);

        assertThat(jdk.isAccp()).isFalse();
        assertThat(jdk.name()).isEqualTo("JDK");
        assertThat(jdk.version()).isEqualTo(System.getProperty("java.version"));
        assertThat(jdk.providerName("Signature", "SHA256withECDSA")).isEqualTo("SunEC");
        assertThat(jdk.providerName("Signature", "SHA256withRSA")).isEqualTo("SunRsaSign");
        assertThat(jdk.providerName("KeyFactory", "Ed25519")).isEqualTo("SunEC");
    }

    @Test
    void theSystemPropertyForcesTheJdk() {
        String before = System.getProperty(ProviderChoice.SYSTEM_PROPERTY);
        System.setProperty(ProviderChoice.SYSTEM_PROPERTY, " JDK ");
        try {
            assertThat(CryptoProvider.fromSystemProperty().isAccp()).isFalse();
            assertThat(ProviderChoice.fromSystemProperty(ProviderChoice.ACCP)).isEqualTo(ProviderChoice.JDK);
        } finally {
            if (before == null) {
                System.clearProperty(ProviderChoice.SYSTEM_PROPERTY);
            } else {
                System.setProperty(ProviderChoice.SYSTEM_PROPERTY, before);
            }
        }
        assertThat(ProviderChoice.fromSystemProperty(ProviderChoice.ACCP)).isEqualTo(before == null
                ? ProviderChoice.ACCP : ProviderChoice.parse(before));
    }

    @Test
    void unknownChoicesAreRefusedWithTheValidOnes() {
        assertThat(ProviderChoice.parse("Accp")).isEqualTo(ProviderChoice.ACCP);
        assertThatThrownBy(() -> ProviderChoice.parse("bouncycastle"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("auto, accp, jdk");
    }

    @Test
    void everyKeyTypeHasAKeyFactoryInEitherSelection() {
        for (CryptoProvider provider : List.of(CryptoProvider.jdk(), CryptoProvider.select(ProviderChoice.AUTO))) {
            assertThat(provider.description()).doesNotContain("=none");
        }
    }
}

// NativeP256 -- the key server's P-256 configuration for tests: keys signed natively, so they pack.
package io.elastikey.keyserver.keys;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.elastikey.keyserver.crypto.CryptoOperations;
import io.elastikey.keyserver.crypto.CryptoProvider;
import io.elastikey.keyserver.crypto.ProviderChoice;

/**
 * The provider and operations of a key server with {@code crypto.p256=native}. {@link #assumed} skips the calling
 * test where the native signer was not built (P256NativeTest fails where it was built and does not load).
 */
record NativeP256(CryptoProvider provider, CryptoOperations operations) {
    static NativeP256 assumed() {
        CryptoProvider provider = CryptoProvider.select(ProviderChoice.AUTO, true);
        assumeTrue(provider.signsP256Natively(), () -> "no native P-256 signer here: " + provider.description());
        return new NativeP256(provider, new CryptoOperations(provider, new byte[32]));
    }
}

// JdkPrivateKeyParser -- PKCS#8 to a private key of the JDK's default providers.
package io.elastikey.keyserver.keys;

import io.elastikey.protocol.pki.KeyType;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;

/**
 * The {@link PrivateKeyParser} for callers that do no private-key operations themselves (the {@code keys}
 * commands) and for tests; the key server uses the crypto engine's, which yields its provider's key objects.
 */
public final class JdkPrivateKeyParser implements PrivateKeyParser {
    @Override
    public PrivateKey parse(KeyType type, byte[] pkcs8) throws GeneralSecurityException {
        return KeyFactory.getInstance(type.keyAlgorithm()).generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
    }
}

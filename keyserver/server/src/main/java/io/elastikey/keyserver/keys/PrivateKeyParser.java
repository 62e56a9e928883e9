package io.elastikey.keyserver.keys;

import io.elastikey.protocol.pki.KeyType;

import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.spec.InvalidKeySpecException;

/**
 * Turns PKCS#8 DER into the private-key object of the provider that will use it, so keys are
 * converted once, when loaded, and never on each operation. The crypto engine supplies it.
 */
@FunctionalInterface
public interface PrivateKeyParser {
    PrivateKey parse(KeyType type, byte[] pkcs8) throws GeneralSecurityException;

    /**
     * Rebuilds a key this parser made as a {@link CompactKey} from its {@link CompactKey#toBytes}; takes ownership of
     * {@code bytes}.
     *
     * @throws GeneralSecurityException when this parser makes no compact keys of {@code type}
     */
    default PrivateKey fromCompact(KeyType type, byte[] bytes) throws GeneralSecurityException {
        throw new InvalidKeySpecException("no compact " + type.cliName() + " keys here");
    }
}

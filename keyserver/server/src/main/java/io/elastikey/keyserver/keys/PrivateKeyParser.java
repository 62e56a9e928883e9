package io.elastikey.keyserver.keys;

import io.elastikey.protocol.pki.KeyType;

import java.security.GeneralSecurityException;
import java.security.PrivateKey;

/**
 * Turns PKCS#8 DER into the private-key object of the provider that will use it, so keys are
 * converted once, when loaded, and never on each operation. The crypto engine supplies it.
 */
@FunctionalInterface
public interface PrivateKeyParser {
    PrivateKey parse(KeyType type, byte[] pkcs8) throws GeneralSecurityException;
}

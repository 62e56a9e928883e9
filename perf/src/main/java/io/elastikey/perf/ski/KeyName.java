// KeyName -- which 20-byte name of a key the load generator sends, as the client it stands in for would.
package io.elastikey.perf.ski;

import io.elastikey.protocol.pki.KeyIds;

/**
 * SKI clients name a key by its certificate's SHA-1, Keyless clients by its Subject Key Identifier (tag 0x04, SHA-1 of
 * the public key's bits). The key server answers to either, but not at the same cost everywhere: a name the parsed-key
 * cache has not seen yet is a store read. A Keyless run that sent certificate SHA-1s would measure a client that
 * does not exist.
 */
enum KeyName {
    CERTIFICATE_SHA1,
    KEYLESS_SKI;

    /** What a client of this kind sends for {@code entry}, 20 bytes. */
    byte[] of(KeyEntry entry) {
        return this == CERTIFICATE_SHA1 ? entry.fingerprint() : KeyIds.keylessSki(entry.spkiDer());
    }

    /** The name a client speaking {@code protocol} sends. */
    static KeyName sentBy(SkiLoadGenerator.Protocol protocol) {
        return protocol == SkiLoadGenerator.Protocol.KEYLESS ? KEYLESS_SKI : CERTIFICATE_SHA1;
    }
}

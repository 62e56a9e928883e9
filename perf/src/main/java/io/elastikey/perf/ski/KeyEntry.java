// KeyEntry -- one key as a key file names it: its certificate's SHA-1, its type, its SubjectPublicKeyInfo DER.
package io.elastikey.perf.ski;

import io.elastikey.protocol.pki.KeyType;

/**
 * What the readers of key files ({@link PemCertificates}, {@link KeyListFile}) hand on, one key at a time, so that
 * neither a million certificates nor a million entries are ever held at once.
 *
 * @param fingerprint the SHA-1 of the certificate's DER, 20 bytes
 * @param type        the key's type
 * @param spkiDer     the key's SubjectPublicKeyInfo, DER
 */
record KeyEntry(byte[] fingerprint, KeyType type, byte[] spkiDer) {

    /** Takes the entries of a file in order; returns false to stop reading. */
    @FunctionalInterface
    interface Sink {
        boolean accept(KeyEntry entry) throws java.io.IOException;
    }
}

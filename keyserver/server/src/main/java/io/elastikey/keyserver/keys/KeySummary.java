// KeySummary -- what a key listing shows: public fields of a record, read without unsealing it.
package io.elastikey.keyserver.keys;

import io.elastikey.protocol.pki.KeyType;

import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * A key as {@code keys list} and {@code keys show} print it. Read from the clear part of the record, so listing a
 * million keys needs neither the KEK's work nor a certificate parse per key. Nothing here is secret.
 *
 * @param keyId          the key ID (lower-case hex SHA-256 of the SubjectPublicKeyInfo)
 * @param type           the key type
 * @param created        when the key was first added
 * @param tags           operator tags
 * @param names          DNS names of the current certificate
 * @param certificateSha1 SHA-1 of the current certificate (hex)
 * @param keylessSki     the Keyless SKI (hex)
 * @param modulusDigest  the Keyless modulus digest (hex), {@code null} for non-RSA keys
 * @param certificates   how many certificates the key is stored under (the current one and earlier ones)
 */
public record KeySummary(String keyId, KeyType type, Instant created, Set<String> tags, List<String> names,
                         String certificateSha1, String keylessSki, String modulusDigest, int certificates) {
    public KeySummary {
        tags = Set.copyOf(tags);
        names = List.copyOf(names);
    }
}

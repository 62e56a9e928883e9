// KeyBatchMaker -- batches for `keys generate`: a key (new, or from the RSA pool) and its certificate each.
package io.elastikey.keyserver.cli;

import io.elastikey.keyserver.keys.KeyEntry;
import io.elastikey.protocol.pki.CertificateAuthority;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.Validity;

import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.IllegalFormatException;
import java.util.List;
import java.util.Set;

/**
 * One batch of generated keys: for each index a key pair (fresh, or {@code pool[index % pool.size()]}) and a server
 * certificate from the development CA for the DNS name {@code String.format(namePattern, index)}. Stateless and
 * thread-safe, so {@link GenerateCommand} runs one batch per core.
 */
final class KeyBatchMaker {
    private final CertificateAuthority ca;
    private final KeyType type;
    private final List<KeyPair> pool;
    private final String namePattern;
    private final Set<String> tags;
    private final Validity validity;

    KeyBatchMaker(CertificateAuthority ca, KeyType type, List<KeyPair> pool, String namePattern, Set<String> tags,
                   Validity validity) {
        this.ca = ca;
        this.type = type;
        this.pool = List.copyOf(pool);
        this.namePattern = namePattern;
        this.tags = Set.copyOf(tags);
        this.validity = validity;
    }

    /**
     * Entries for indexes {@code from} (inclusive) to {@code to} (exclusive); {@code made} runs after each key, so
     * progress moves per key even where a batch takes a minute (RSA).
     */
    List<KeyEntry> batch(long from, long to, Runnable made) throws GeneralSecurityException {
        List<KeyEntry> entries = new ArrayList<>((int) (to - from));
        for (long index = from; index < to; index++) {
            KeyPair pair = pool.isEmpty() ? type.generate() : pool.get((int) (index % pool.size()));
            String name = name(namePattern, index);
            X509Certificate certificate = ca.certify(pair.getPublic(), CertificateAuthority.Purpose.SERVER, name,
                    List.of(name), validity);
            entries.add(KeyEntry.generated(pair, List.of(certificate, ca.certificate()), tags));
            made.run();
        }
        return entries;
    }

    /**
     * The DNS name of key {@code index}.
     *
     * @throws IllegalArgumentException when the pattern does not take one integer
     */
    static String name(String namePattern, long index) {
        try {
            return String.format(namePattern, index);
        } catch (IllegalFormatException e) {
            throw new IllegalArgumentException("--name '" + namePattern + "' must hold one %d for the key's "
                    + "number, e.g. key-%d.example.test");
        }
    }
}

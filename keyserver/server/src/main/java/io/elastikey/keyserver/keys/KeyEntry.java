// KeyEntry -- a private key with its certificate chain and tags, checked to belong together, ready to be stored.
package io.elastikey.keyserver.keys;

import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.protocol.pki.KeyType;

import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import java.security.KeyPair;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * What {@link KeyRepository#add} takes: a private key, the certificate chain to serve it under (leaf first, then
 * its issuers), and operator tags. The factories check that the leaf certifies this very key, so a key file paired
 * with the wrong certificate is refused here and not discovered in a failed handshake.
 *
 * <p>{@link #toString()} names the key ID and type only.
 */
public final class KeyEntry {
    private final PrivateKey privateKey;
    private final List<X509Certificate> chain;
    private final Set<String> tags;
    private final KeyType type;
    private final byte[] keyId;

    private KeyEntry(PrivateKey privateKey, List<X509Certificate> chain, Set<String> tags, byte[] keyId) {
        this.privateKey = privateKey;
        this.chain = List.copyOf(chain);
        this.tags = normalizeTags(tags);
        this.type = KeyType.of(chain.get(0).getPublicKey());
        this.keyId = keyId;
    }

    /**
     * A key from outside (files, PKCS#12): its public key is derived and must be the leaf's.
     *
     * @throws InvalidKeyException when the leaf certifies another key, or the key cannot be read
     * @throws IllegalArgumentException when the chain is empty or the key is of an unsupported type
     */
    public static KeyEntry of(PrivateKey privateKey, List<X509Certificate> chain, Set<String> tags)
            throws GeneralSecurityException {
        requireChain(chain);
        byte[] derived = KeyIds.spkiSha256(PublicKeys.of(privateKey));
        byte[] certified = KeyIds.spkiSha256(chain.get(0).getPublicKey());
        if (!MessageDigest.isEqual(derived, certified)) {
            throw new InvalidKeyException("the certificate " + chain.get(0).getSubjectX500Principal()
                    + " is for key " + KeyIds.hex(certified) + ", not for the private key given (key "
                    + KeyIds.hex(derived) + ")");
        }
        return new KeyEntry(privateKey, chain, tags, certified);
    }

    /**
     * A key pair the caller generated and had certified: the pair's public key must be the leaf's, which is a
     * comparison of bytes, cheap enough for generating a million keys.
     */
    public static KeyEntry generated(KeyPair pair, List<X509Certificate> chain, Set<String> tags)
            throws InvalidKeyException {
        requireChain(chain);
        byte[] generated = KeyIds.spkiSha256(pair.getPublic());
        byte[] certified = KeyIds.spkiSha256(chain.get(0).getPublicKey());
        if (!MessageDigest.isEqual(generated, certified)) {
            throw new InvalidKeyException("the certificate " + chain.get(0).getSubjectX500Principal()
                    + " is not for the generated key " + KeyIds.hex(generated));
        }
        return new KeyEntry(pair.getPrivate(), chain, tags, certified);
    }

    public PrivateKey privateKey() {
        return privateKey;
    }

    /** The chain, leaf first. */
    public List<X509Certificate> chain() {
        return chain;
    }

    /** The certificate the key is served under. */
    public X509Certificate certificate() {
        return chain.get(0);
    }

    /** Tags, sorted. */
    public Set<String> tags() {
        return tags;
    }

    public KeyType type() {
        return type;
    }

    /** The key ID: lower-case hex SHA-256 of the SubjectPublicKeyInfo. */
    public String keyId() {
        return KeyIds.hex(keyId);
    }

    byte[] keyIdBytes() {
        return keyId.clone();
    }

    @Override
    public String toString() {
        return "KeyEntry[" + keyId() + ", " + type.cliName() + ", " + certificate().getSubjectX500Principal() + "]";
    }

    private static void requireChain(List<X509Certificate> chain) {
        if (chain == null || chain.isEmpty()) {
            throw new IllegalArgumentException("a key needs its certificate: the key server answers for keys whose "
                    + "certificate an edge presents");
        }
    }

    /** Tags are matched by policy as written: one word each, no commas (the CLI and policy files split on them). */
    private static Set<String> normalizeTags(Set<String> tags) {
        Set<String> normalized = new TreeSet<>();
        for (String tag : tags) {
            String t = tag.strip();
            if (t.isEmpty() || t.contains(",") || t.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException("a tag is one word without commas, not '" + tag + "'");
            }
            normalized.add(t);
        }
        return normalized;
    }
}

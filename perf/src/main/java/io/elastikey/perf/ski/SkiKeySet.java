// SkiKeySet -- the keys a load run names: certificates from a PEM file, each with the spki an SKI client sends.
package io.elastikey.perf.ski;

import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.PemFiles;
import io.elastikey.protocol.ski.SignatureScheme;
import io.elastikey.protocol.ski.SkiMethod;

/**
 * The certificates of the keys under test, as {@code ./elastikey keys export-public} writes them: the generator needs
 * only public halves, to name a key (the certificate's SHA-1 fingerprint in upper-case hex, what existing SKI clients
 * send as {@code spki}) and to check answers (encrypt a pre-master secret, verify a signature).
 */
final class SkiKeySet {
    /** One key under test. */
    record Key(String spki, PublicKey publicKey, KeyType type) {
        boolean isRsa() {
            return "RSA".equals(type.keyAlgorithm());
        }
    }

    private final List<Key> keys;

    private SkiKeySet(List<Key> keys) {
        this.keys = List.copyOf(keys);
    }

    /**
     * Every certificate in {@code pemFile}.
     *
     * @throws IOException when the file is missing or holds no certificate
     * @throws IllegalArgumentException when a certificate's key is of a type the key server does not serve
     */
    static SkiKeySet load(Path pemFile) throws IOException, GeneralSecurityException {
        List<Key> keys = new ArrayList<>();
        for (X509Certificate certificate : PemFiles.readCertificates(pemFile)) {
            keys.add(keyOf(certificate));
        }
        return new SkiKeySet(keys);
    }

    static Key keyOf(X509Certificate certificate) throws GeneralSecurityException {
        byte[] fingerprint = MessageDigest.getInstance("SHA-1").digest(certificate.getEncoded());
        PublicKey publicKey = certificate.getPublicKey();
        return new Key(HexFormat.of().withUpperCase().formatHex(fingerprint), publicKey, KeyType.of(publicKey));
    }

    List<Key> keys() {
        return keys;
    }

    /**
     * The keys {@code method} can use: RSA keys for the RSA methods, any key for ECDHE, and for SIGN the keys of the
     * scheme's family ({@code scheme} null means each key's own scheme, so every key fits).
     *
     * @throws IllegalArgumentException when no key fits, naming the key types the file holds
     */
    SkiKeySet fitting(SkiMethod method, SignatureScheme scheme) {
        List<Key> fit = new ArrayList<>();
        for (Key key : keys) {
            if (fits(key, method, scheme)) {
                fit.add(key);
            }
        }
        if (fit.isEmpty()) {
            throw new IllegalArgumentException("no key in the key file can serve " + method.wireName()
                    + (scheme != null ? " with " + scheme.wireName() : "") + "; its keys are "
                    + keys.stream().map(k -> k.type().cliName()).distinct().toList());
        }
        return new SkiKeySet(fit);
    }

    private static boolean fits(Key key, SkiMethod method, SignatureScheme scheme) {
        return switch (method) {
            case RSA, RSA_RAW -> key.isRsa();
            case ECDHE -> true;
            case SIGN -> scheme == null || Signatures.keyAlgorithmOf(scheme).equals(key.type().keyAlgorithm());
        };
    }
}

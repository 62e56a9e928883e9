// KeyIds -- the identifiers by which SKI and Keyless clients name a key (PROTOCOLS.md sections 1 and 2).
package io.elastikey.protocol.pki;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PublicKey;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAPublicKey;
import java.util.HexFormat;
import java.util.Locale;

import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;

/**
 * Every form in which a client may name a key, computed the way the clients already compute them, so that
 * each resolves to one stored key:
 * <ul>
 *   <li>{@link #certificateSha1}: SHA-1 over the certificate's DER, what SKI clients send as {@code spki};
 *   <li>{@link #spkiSha256}: SHA-256 over the SubjectPublicKeyInfo DER: the canonical <em>key ID</em>, the same
 *       for every certificate of one key;
 *   <li>{@link #keylessSki}: Keyless tag {@code 0x04}, SHA-1 over the contents of the SubjectPublicKeyInfo's
 *       {@code subjectPublicKey} BIT STRING (without its unused-bits octet), which is also RFC 5280's method 1
 *       subject key identifier that OpenSSL puts in certificates;
 *   <li>{@link #modulusDigest}: Keyless tag {@code 0x01}, for RSA keys only, SHA-256 over the upper-case hex
 *       text of the modulus (no leading zeros, as Go's {@code %X} and {@code openssl rsa -modulus} print it).
 * </ul>
 *
 * <p>Identifiers are stored and printed as lower-case hex; {@link #normalize} accepts either case because
 * existing SKI clients send upper case. All methods are static and thread-safe.
 */
public final class KeyIds {
    /** Length in bytes of a SHA-1 identifier (certificate fingerprint, Keyless SKI). */
    public static final int SHA1_LENGTH = 20;
    /** Length in bytes of a SHA-256 identifier (key ID, modulus digest). */
    public static final int SHA256_LENGTH = 32;

    private static final HexFormat HEX = HexFormat.of();

    private KeyIds() {
    }

    /** The canonical key ID of {@code key}: lower-case hex SHA-256 of its SubjectPublicKeyInfo DER. */
    public static String keyId(PublicKey key) {
        return HEX.formatHex(spkiSha256(key));
    }

    /** SHA-256 of the SubjectPublicKeyInfo DER (the key ID as bytes). */
    public static byte[] spkiSha256(PublicKey key) {
        return digest("SHA-256", spki(key));
    }

    /** SHA-1 of the certificate's DER encoding: the fingerprint SKI clients send. */
    public static byte[] certificateSha1(X509Certificate certificate) {
        try {
            return digest("SHA-1", certificate.getEncoded());
        } catch (CertificateEncodingException e) {
            throw new IllegalArgumentException("certificate " + certificate.getSubjectX500Principal()
                    + " cannot be encoded", e);
        }
    }

    /** The Keyless Subject Key Identifier: SHA-1 over the subjectPublicKey bit string's contents, 20 bytes. */
    public static byte[] keylessSki(PublicKey key) {
        return keylessSki(spki(key));
    }

    /** {@link #keylessSki(PublicKey)} of a SubjectPublicKeyInfo DER (for a client that holds only that). */
    public static byte[] keylessSki(byte[] spkiDer) {
        byte[] bits = SubjectPublicKeyInfo.getInstance(spkiDer).getPublicKeyData().getOctets();
        return digest("SHA-1", bits);
    }

    /**
     * The Keyless certificate digest of an RSA key: SHA-256 over the ASCII upper-case hex of the modulus.
     *
     * @throws IllegalArgumentException when {@code key} is not an RSA key
     */
    public static byte[] modulusDigest(PublicKey key) {
        if (!(key instanceof RSAPublicKey rsa)) {
            throw new IllegalArgumentException("a modulus digest needs an RSA key, not " + key.getAlgorithm());
        }
        String modulus = rsa.getModulus().toString(16).toUpperCase(Locale.ROOT);
        return digest("SHA-256", modulus.getBytes(StandardCharsets.US_ASCII));
    }

    /** Lower-case hex of {@code bytes}. */
    public static String hex(byte[] bytes) {
        return HEX.formatHex(bytes);
    }

    /**
     * {@code identifier} in the stored form: lower-case hex of 20 or 32 bytes.
     *
     * @throws IllegalArgumentException when it is not 40 or 64 hex digits; the message gives the length and the
     *     position of the first bad character, never the input itself
     */
    public static String normalize(String identifier) {
        if (identifier == null) {
            throw new IllegalArgumentException("a key identifier is required");
        }
        int length = identifier.length();
        if (length != 2 * SHA1_LENGTH && length != 2 * SHA256_LENGTH) {
            throw new IllegalArgumentException("a key identifier is 40 or 64 hex digits (SHA-1 or SHA-256), not "
                    + length + " characters");
        }
        for (int i = 0; i < length; i++) {
            if (!isHexDigit(identifier.charAt(i))) {
                throw new IllegalArgumentException("a key identifier is hex digits only; character " + (i + 1)
                        + " of " + length + " is not one");
            }
        }
        return identifier.toLowerCase(Locale.ROOT);
    }

    /** The bytes of a {@link #normalize normalizable} identifier: 20 or 32 of them. */
    public static byte[] parse(String identifier) {
        return HEX.parseHex(normalize(identifier));
    }

    private static boolean isHexDigit(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    private static byte[] spki(PublicKey key) {
        byte[] der = key.getEncoded();
        if (der == null || !"X.509".equals(key.getFormat())) {
            throw new IllegalArgumentException("a " + key.getAlgorithm() + " public key without an X.509 "
                    + "SubjectPublicKeyInfo encoding has no key ID");
        }
        return der;
    }

    private static byte[] digest(String algorithm, byte[] data) {
        try {
            return MessageDigest.getInstance(algorithm).digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has " + algorithm, e);
        }
    }
}

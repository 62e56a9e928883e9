// Pem -- PEM text to and from JDK keys and certificates, with errors that never quote the input.
package io.elastikey.protocol.pki;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.security.Key;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * Reads and writes the PEM files a PKI lives in: PKCS#8 private keys, X.509 SubjectPublicKeyInfo public keys and
 * certificates, alone or as a chain (leaf first).
 *
 * <p>Writing always produces the modern, algorithm-neutral forms ({@code PRIVATE KEY}, {@code PUBLIC KEY},
 * {@code CERTIFICATE}). Reading also accepts OpenSSL's traditional {@code RSA PRIVATE KEY} and
 * {@code EC PRIVATE KEY}, which older tools still emit, by way of Bouncy Castle's {@link PEMParser}. Decoded keys
 * and certificates are built by the JDK's default providers, so they work with JSSE like keys it generated itself.
 *
 * <p>Readers look at every PEM block in the input and pick the ones they want, so a combined file (certificate and
 * key together) serves both. Anything else fails with a {@link PemException} that says what was expected and what
 * was found, in terms of PEM labels only: a message never contains bytes of the input, which may be a secret.
 *
 * <p>All methods are static, stateless and thread-safe.
 */
public final class Pem {
    /** Where parsed PEM came from when the caller gave no file name. */
    static final String TEXT = "PEM text";

    private static final String PRIVATE_KEY = "PRIVATE KEY";
    private static final String PUBLIC_KEY = "PUBLIC KEY";
    private static final String CERTIFICATE = "CERTIFICATE";
    private static final Pattern BEGIN_LINE = Pattern.compile("-----BEGIN ([^\\r\\n]{0,64}?)-----");
    private static final Pattern LABEL = Pattern.compile("[A-Z0-9 ]{1,40}");
    private static final Base64.Encoder BASE64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII));

    private Pem() {
    }

    /** {@code key} as a {@code PRIVATE KEY} (unencrypted PKCS#8) block. */
    public static String writePrivateKey(PrivateKey key) {
        return armor(PRIVATE_KEY, encoding(key, "PKCS#8"));
    }

    /** {@code key} as a {@code PUBLIC KEY} (X.509 SubjectPublicKeyInfo) block. */
    public static String writePublicKey(PublicKey key) {
        return armor(PUBLIC_KEY, encoding(key, "X.509"));
    }

    /** {@code certificate} as a {@code CERTIFICATE} block. */
    public static String writeCertificate(X509Certificate certificate) {
        return armor(CERTIFICATE, encoding(certificate));
    }

    /** One {@code CERTIFICATE} block per certificate, in the order given: leaf first for a chain. */
    public static String writeCertificates(List<X509Certificate> chain) {
        StringBuilder pem = new StringBuilder();
        for (X509Certificate certificate : chain) {
            pem.append(writeCertificate(certificate));
        }
        return pem.toString();
    }

    /**
     * The one unencrypted private key in {@code pem}: PKCS#8 ({@code PRIVATE KEY}) or traditional
     * ({@code RSA PRIVATE KEY}, {@code EC PRIVATE KEY}). Other blocks are ignored.
     *
     * @throws PemException when there is no such key, more than one, an encrypted one, or malformed data
     */
    public static PrivateKey readPrivateKey(String pem) throws PemException {
        return readPrivateKey(pem, TEXT);
    }

    /** The one {@code PUBLIC KEY} in {@code pem}; other blocks are ignored. */
    public static PublicKey readPublicKey(String pem) throws PemException {
        return readPublicKey(pem, TEXT);
    }

    /** The first certificate in {@code pem}: the leaf, when it holds a chain. */
    public static X509Certificate readCertificate(String pem) throws PemException {
        return readCertificates(pem, TEXT).get(0);
    }

    /** Every certificate in {@code pem}, in file order; at least one. Other blocks are ignored. */
    public static List<X509Certificate> readCertificates(String pem) throws PemException {
        return readCertificates(pem, TEXT);
    }

    static PrivateKey readPrivateKey(String pem, String source) throws PemException {
        String expected = "one unencrypted private key (PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY)";
        List<PrivateKeyInfo> keys = new ArrayList<>();
        for (Object block : parse(pem, source, expected)) {
            if (block instanceof PrivateKeyInfo info) {
                keys.add(info);
            } else if (block instanceof PEMKeyPair pair) {
                keys.add(pair.getPrivateKeyInfo());
            } else if (block instanceof PKCS8EncryptedPrivateKeyInfo || block instanceof PEMEncryptedKeyPair) {
                throw new PemException(source, expected,
                        "an encrypted private key; decrypt it first, e.g. openssl pkey -in KEY -out PLAIN-KEY");
            }
        }
        PrivateKeyInfo info = single(keys, pem, source, expected, "private keys");
        try {
            return new JcaPEMKeyConverter().getPrivateKey(info);
        } catch (IOException | RuntimeException e) {
            throw new PemException(source, expected, "a private key the JDK cannot decode (algorithm "
                    + info.getPrivateKeyAlgorithm().getAlgorithm() + ", " + e.getClass().getSimpleName() + ")");
        }
    }

    static PublicKey readPublicKey(String pem, String source) throws PemException {
        String expected = "one public key (PUBLIC KEY)";
        List<SubjectPublicKeyInfo> keys = new ArrayList<>();
        for (Object block : parse(pem, source, expected)) {
            if (block instanceof SubjectPublicKeyInfo info) {
                keys.add(info);
            }
        }
        SubjectPublicKeyInfo info = single(keys, pem, source, expected, "public keys");
        try {
            return new JcaPEMKeyConverter().getPublicKey(info);
        } catch (IOException | RuntimeException e) {
            throw new PemException(source, expected, "a public key the JDK cannot decode (algorithm "
                    + info.getAlgorithm().getAlgorithm() + ", " + e.getClass().getSimpleName() + ")");
        }
    }

    static List<X509Certificate> readCertificates(String pem, String source) throws PemException {
        String expected = "at least one certificate (CERTIFICATE)";
        List<X509Certificate> certificates = new ArrayList<>();
        JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
        for (Object block : parse(pem, source, expected)) {
            if (block instanceof X509CertificateHolder holder) {
                try {
                    certificates.add(converter.getCertificate(holder));
                } catch (CertificateException e) {
                    throw new PemException(source, expected, "certificate " + (certificates.size() + 1)
                            + " of the input, which the JDK cannot decode (" + e.getClass().getSimpleName() + ")");
                }
            }
        }
        if (certificates.isEmpty()) {
            throw new PemException(source, expected, describe(pem));
        }
        return List.copyOf(certificates);
    }

    /**
     * Every PEM block of {@code pem}, decoded by Bouncy Castle into its ASN.1 object. Parser errors are reduced to
     * their class name: their messages might quote the (possibly secret) data.
     */
    private static List<Object> parse(String pem, String source, String expected) throws PemException {
        List<Object> blocks = new ArrayList<>();
        try (PEMParser parser = new PEMParser(new StringReader(pem))) {
            for (Object block = parser.readObject(); block != null; block = parser.readObject()) {
                blocks.add(block);
            }
        } catch (IOException | RuntimeException e) {
            throw new PemException(source, expected,
                    "malformed data in " + describe(pem) + " (" + e.getClass().getSimpleName() + ")");
        }
        return blocks;
    }

    private static <T> T single(List<T> found, String pem, String source, String expected, String plural)
            throws PemException {
        if (found.isEmpty()) {
            throw new PemException(source, expected, describe(pem));
        }
        if (found.size() > 1) {
            throw new PemException(source, expected, found.size() + " " + plural);
        }
        return found.get(0);
    }

    /** What {@code pem} holds, from its BEGIN lines alone: safe to show whatever the input was. */
    static String describe(String pem) {
        List<String> labels = new ArrayList<>();
        Matcher begin = BEGIN_LINE.matcher(pem);
        while (begin.find()) {
            String label = begin.group(1);
            labels.add(LABEL.matcher(label).matches() ? label : "(unreadable label)");
        }
        if (!labels.isEmpty()) {
            return (labels.size() == 1 ? "a PEM block " : labels.size() + " PEM blocks ") + String.join(", ", labels);
        }
        if (pem.isBlank()) {
            return "empty input";
        }
        boolean binary = pem.chars().anyMatch(c -> (c < 0x20 && !Character.isWhitespace(c)) || c > 0x7e);
        return binary ? "binary data, not PEM text (a DER file? convert it with openssl first)"
                : "text without a '-----BEGIN ...-----' line";
    }

    private static byte[] encoding(Key key, String format) {
        byte[] der = key.getEncoded();
        if (der == null || !format.equals(key.getFormat())) {
            throw new IllegalArgumentException("a " + key.getAlgorithm() + " key encoded as " + key.getFormat()
                    + " cannot be written as " + format + " (keys held in hardware are not exportable)");
        }
        return der;
    }

    private static byte[] encoding(X509Certificate certificate) {
        try {
            return certificate.getEncoded();
        } catch (CertificateEncodingException e) {
            // Never for certificates made by a CertificateFactory, which keep the DER they were decoded from.
            throw new IllegalArgumentException("certificate " + certificate.getSubjectX500Principal()
                    + " cannot be encoded", e);
        }
    }

    private static String armor(String label, byte[] der) {
        return "-----BEGIN " + label + "-----\n" + BASE64.encodeToString(der) + "\n-----END " + label + "-----\n";
    }
}

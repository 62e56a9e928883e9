// PemCertificates -- streams the certificates of a PEM file as key entries, one certificate in memory at a time.
package io.elastikey.perf.ski;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.spec.X509EncodedKeySpec;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;

import io.elastikey.protocol.pki.KeyType;
import org.bouncycastle.asn1.ASN1Encoding;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.edec.EdECObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.RSAPublicKey;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.openssl.PEMParser;

/**
 * Bouncy Castle's {@link PEMParser} reads one block at a time; each {@code CERTIFICATE} becomes a {@link KeyEntry}
 * (the SHA-1 of its DER, its key's type, its SubjectPublicKeyInfo) and is dropped. No {@code X509Certificate} and no
 * {@code PublicKey} is built per certificate: a key's type is decided by {@link KeyType#of} once per distinct
 * algorithm (and RSA modulus size) and remembered, so a million P-256 certificates cost one key decoding. Other
 * blocks (keys, CRLs) are skipped. Not thread-safe; one reader per file.
 */
final class PemCertificates {
    private final Map<String, KeyType> typeByAlgorithm = new HashMap<>();
    private final MessageDigest sha1;

    private PemCertificates() {
        try {
            sha1 = MessageDigest.getInstance("SHA-1");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JDK has no SHA-1", e);
        }
    }

    /**
     * Every certificate of {@code file}, in order, until {@code sink} says stop.
     *
     * @throws IOException when the file cannot be read or a block is not valid PEM
     * @throws IllegalArgumentException when a certificate's key is of a type the key server does not serve
     */
    static void read(Path file, KeyEntry.Sink sink) throws IOException {
        try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.ISO_8859_1)) {
            new PemCertificates().read(reader, sink, file.toString());
        }
    }

    private void read(Reader reader, KeyEntry.Sink sink, String source) throws IOException {
        PEMParser pem = new PEMParser(reader);
        long certificates = 0;
        while (true) {
            Object block;
            try {
                block = pem.readObject();
            } catch (IOException | RuntimeException e) {
                throw new IOException(source + ": unreadable PEM after " + certificates + " certificates ("
                        + e.getMessage() + ")", e);
            }
            if (block == null) {
                return;
            }
            if (block instanceof X509CertificateHolder certificate) {
                certificates++;
                if (!sink.accept(entryOf(certificate))) {
                    return;
                }
            }
        }
    }

    KeyEntry entryOf(X509CertificateHolder certificate) throws IOException {
        byte[] fingerprint = sha1.digest(certificate.getEncoded());
        SubjectPublicKeyInfo spki = certificate.getSubjectPublicKeyInfo();
        byte[] spkiDer = spki.getEncoded(ASN1Encoding.DER);
        return new KeyEntry(fingerprint, typeOf(spki, spkiDer), spkiDer);
    }

    /** The key's type, from the algorithm identifier (and for RSA the modulus size), decoded once per kind. */
    private KeyType typeOf(SubjectPublicKeyInfo spki, byte[] spkiDer) throws IOException {
        ASN1ObjectIdentifier algorithm = spki.getAlgorithm().getAlgorithm();
        String kind = HexFormat.of().formatHex(spki.getAlgorithm().getEncoded(ASN1Encoding.DER));
        if (algorithm.equals(PKCSObjectIdentifiers.rsaEncryption)) {
            kind += "/" + RSAPublicKey.getInstance(spki.parsePublicKey()).getModulus().bitLength();
        }
        KeyType known = typeByAlgorithm.get(kind);
        if (known == null) {
            known = KeyType.of(decode(algorithm, spkiDer));
            typeByAlgorithm.put(kind, known);
        }
        return known;
    }

    private static java.security.PublicKey decode(ASN1ObjectIdentifier algorithm, byte[] spkiDer) {
        String name = algorithm.equals(PKCSObjectIdentifiers.rsaEncryption) ? "RSA"
                : algorithm.equals(X9ObjectIdentifiers.id_ecPublicKey) ? "EC"
                : algorithm.equals(EdECObjectIdentifiers.id_Ed25519) ? "Ed25519" : null;
        if (name == null) {
            throw new IllegalArgumentException("unsupported key: algorithm " + algorithm + "; supported key types "
                    + "are RSA, EC P-256/P-384 and Ed25519");
        }
        try {
            return KeyFactory.getInstance(name).generatePublic(new X509EncodedKeySpec(spkiDer));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("unsupported key: a " + name + " key the JDK cannot decode ("
                    + e.getMessage() + ")", e);
        }
    }
}

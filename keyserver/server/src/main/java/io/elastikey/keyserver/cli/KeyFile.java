// KeyFile -- what one input file of `keys import` holds: a private key, a certificate chain, or PKCS#12 pairs.
package io.elastikey.keyserver.cli;

import io.elastikey.protocol.pki.PemFiles;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.UnrecoverableKeyException;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

import org.bouncycastle.asn1.DERNull;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.pkcs.RSAPrivateKey;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * Reads one file given to {@code keys import}, recognizing its form by its content rather than its name (only
 * PKCS#12 is recognized by its {@code .p12}/{@code .pfx} extension, or as the last guess for binary data when a
 * password was given):
 * <ul>
 *   <li>PEM: a private key ({@code PRIVATE KEY}, {@code RSA PRIVATE KEY}, {@code EC PRIVATE KEY}) and/or
 *       certificates, the first being the leaf and the rest its chain ({@code fullchain.pem});
 *   <li>DER: one certificate, or one PKCS#8 (or PKCS#1 RSA) private key;
 *   <li>PKCS#12: every key entry with its certificate chain.
 * </ul>
 * Messages name the file and never quote its content.
 *
 * @param key          the private key in the file, or {@code null}
 * @param certificates the certificates in file order (leaf first), possibly none
 * @param pairs        the key entries of a PKCS#12 file, each key with its chain
 */
record KeyFile(Path file, PrivateKey key, List<X509Certificate> certificates, List<Pair> pairs) {
    /** A key and its chain, as PKCS#12 holds them. */
    record Pair(PrivateKey key, List<X509Certificate> chain) {
    }

    boolean isEmpty() {
        return key == null && certificates.isEmpty() && pairs.isEmpty();
    }

    /**
     * Reads {@code file}; a file of no recognized form yields an {@link #isEmpty empty} result.
     *
     * @param password the PKCS#12 password, or {@code null}
     * @throws CliException for a PKCS#12 file without a password or with the wrong one
     * @throws IOException for an unreadable file or malformed PEM (an encrypted key, say)
     */
    static KeyFile read(Path file, char[] password) throws IOException, GeneralSecurityException {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".p12") || name.endsWith(".pfx")) {
            return pkcs12(file, Files.readAllBytes(file), password);
        }
        byte[] bytes = Files.readAllBytes(file);
        try {
            String text = new String(bytes, StandardCharsets.ISO_8859_1);
            if (text.contains("-----BEGIN ")) {
                return pem(file, text);
            }
            KeyFile der = der(file, bytes);
            if (der.isEmpty() && password != null && bytes.length > 0 && bytes[0] == 0x30) {
                return pkcs12(file, bytes, password);
            }
            return der;
        } finally {
            Arrays.fill(bytes, (byte) 0);
        }
    }

    private static KeyFile pem(Path file, String text) throws IOException {
        PrivateKey key = text.matches("(?s).*-----BEGIN [A-Z ]*PRIVATE KEY-----.*") ? PemFiles.readPrivateKey(file)
                : null;
        List<X509Certificate> certificates = text.contains("-----BEGIN CERTIFICATE-----")
                ? PemFiles.readCertificates(file) : List.of();
        return new KeyFile(file, key, certificates, List.of());
    }

    private static KeyFile der(Path file, byte[] bytes) throws GeneralSecurityException {
        try {
            Certificate certificate = CertificateFactory.getInstance("X.509")
                    .generateCertificate(new ByteArrayInputStream(bytes));
            if (certificate instanceof X509Certificate x509) {
                return new KeyFile(file, null, List.of(x509), List.of());
            }
        } catch (CertificateException e) {
            // not a certificate: perhaps a key
        }
        PrivateKeyInfo info = privateKeyInfo(bytes);
        if (info == null) {
            return new KeyFile(file, null, List.of(), List.of());
        }
        try {
            return new KeyFile(file, new JcaPEMKeyConverter().getPrivateKey(info), List.of(), List.of());
        } catch (IOException | RuntimeException e) {
            throw new GeneralSecurityException(file + ": a private key of algorithm "
                    + info.getPrivateKeyAlgorithm().getAlgorithm() + " that cannot be decoded ("
                    + e.getClass().getSimpleName() + ")");
        }
    }

    /** PKCS#8, else PKCS#1 RSA wrapped into PKCS#8; {@code null} when the bytes are neither. */
    private static PrivateKeyInfo privateKeyInfo(byte[] bytes) {
        try {
            return PrivateKeyInfo.getInstance(bytes);
        } catch (RuntimeException notPkcs8) {
            try {
                return new PrivateKeyInfo(new AlgorithmIdentifier(PKCSObjectIdentifiers.rsaEncryption,
                        DERNull.INSTANCE), RSAPrivateKey.getInstance(bytes));
            } catch (IOException | RuntimeException notPkcs1) {
                return null;
            }
        }
    }

    private static KeyFile pkcs12(Path file, byte[] bytes, char[] password) throws GeneralSecurityException {
        if (password == null) {
            throw new CliException(file + " is a PKCS#12 file: give its password with --password");
        }
        KeyStore store = KeyStore.getInstance("PKCS12");
        try {
            store.load(new ByteArrayInputStream(bytes), password);
        } catch (IOException e) {
            if (e.getCause() instanceof UnrecoverableKeyException) {
                throw new CliException(file + ": wrong PKCS#12 password");
            }
            throw new CliException(file + ": not a readable PKCS#12 file (" + e.getClass().getSimpleName() + ")");
        }
        List<Pair> pairs = new ArrayList<>();
        for (String alias : Collections.list(store.aliases())) {
            if (!store.isKeyEntry(alias)) {
                continue;
            }
            Key key = store.getKey(alias, password);
            Certificate[] chain = store.getCertificateChain(alias);
            if (!(key instanceof PrivateKey privateKey)) {
                continue;
            }
            if (chain == null || chain.length == 0) {
                throw new CliException(file + ": PKCS#12 entry '" + alias + "' has a key without a certificate");
            }
            List<X509Certificate> x509 = new ArrayList<>();
            for (Certificate certificate : chain) {
                x509.add((X509Certificate) certificate);
            }
            pairs.add(new Pair(privateKey, x509));
        }
        return new KeyFile(file, null, List.of(), pairs);
    }

    @Override
    public String toString() {
        return "KeyFile[" + file + ", key=" + (key != null) + ", certificates=" + certificates.size()
                + ", pairs=" + pairs.size() + "]";
    }
}

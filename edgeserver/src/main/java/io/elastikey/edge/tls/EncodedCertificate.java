// EncodedCertificate -- a certificate the edge serves, held as its DER bytes and parsed only when asked more.
package io.elastikey.edge.tls;

import java.io.ByteArrayInputStream;
import java.math.BigInteger;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.security.NoSuchProviderException;
import java.security.Principal;
import java.security.Provider;
import java.security.PublicKey;
import java.security.SignatureException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.Date;
import java.util.List;
import java.util.Set;
import javax.security.auth.x500.X500Principal;

/**
 * A certificate the edge presents, kept as its DER encoding alone. Why: the JDK's parsed certificate takes about
 * 5 KB of heap (names, extensions, key, dates as objects), so a directory of a million certificates would need 5 GB
 * before the edge served a byte, while a handshake needs the encoding only: Netty hands BoringSSL the chain as PEM
 * made from {@link #getEncoded()}, and the key server is asked by {@link #keyId()}. Anything else (the subject,
 * the key, the dates) parses the encoding the first time it is asked, and keeps the result.
 *
 * <p>Immutable apart from that cache; equal to any certificate with the same encoding, as every
 * {@link java.security.cert.Certificate} is.
 */
public final class EncodedCertificate extends X509Certificate {
    private final byte[] der;
    private final String keyId;
    private volatile X509Certificate parsed;

    /**
     * @param read  the certificate as the registry read it; only its encoding is kept
     * @param keyId for a leaf, the key server's name for its private key; {@code null} for an issuer
     */
    EncodedCertificate(X509Certificate read, String keyId) throws CertificateException {
        this.der = read.getEncoded();
        this.keyId = keyId;
    }

    /** The key server's name for this leaf's private key (the hex SHA-256 of its SubjectPublicKeyInfo). */
    public String keyId() {
        return keyId;
    }

    /** The encoding, uncopied: for the registry's own checks, which only read it. */
    byte[] der() {
        return der;
    }

    @Override
    public byte[] getEncoded() {
        return der.clone();
    }

    private X509Certificate parsed() {
        X509Certificate p = parsed;
        if (p == null) {
            try {
                p = (X509Certificate) CertificateFactory.getInstance("X.509")
                        .generateCertificate(new ByteArrayInputStream(der));
            } catch (CertificateException e) {
                throw new IllegalStateException("a certificate that parsed when it was read no longer does", e);
            }
            parsed = p;
        }
        return p;
    }

    @Override
    public void checkValidity() throws CertificateExpiredException, CertificateNotYetValidException {
        parsed().checkValidity();
    }

    @Override
    public void checkValidity(Date date) throws CertificateExpiredException, CertificateNotYetValidException {
        parsed().checkValidity(date);
    }

    @Override
    public int getVersion() {
        return parsed().getVersion();
    }

    @Override
    public BigInteger getSerialNumber() {
        return parsed().getSerialNumber();
    }

    @SuppressWarnings("deprecation")
    @Override
    public Principal getIssuerDN() {
        return parsed().getIssuerDN();
    }

    @SuppressWarnings("deprecation")
    @Override
    public Principal getSubjectDN() {
        return parsed().getSubjectDN();
    }

    @Override
    public X500Principal getIssuerX500Principal() {
        return parsed().getIssuerX500Principal();
    }

    @Override
    public X500Principal getSubjectX500Principal() {
        return parsed().getSubjectX500Principal();
    }

    @Override
    public Date getNotBefore() {
        return parsed().getNotBefore();
    }

    @Override
    public Date getNotAfter() {
        return parsed().getNotAfter();
    }

    @Override
    public byte[] getTBSCertificate() throws CertificateEncodingException {
        return parsed().getTBSCertificate();
    }

    @Override
    public byte[] getSignature() {
        return parsed().getSignature();
    }

    @Override
    public String getSigAlgName() {
        return parsed().getSigAlgName();
    }

    @Override
    public String getSigAlgOID() {
        return parsed().getSigAlgOID();
    }

    @Override
    public byte[] getSigAlgParams() {
        return parsed().getSigAlgParams();
    }

    @Override
    public boolean[] getIssuerUniqueID() {
        return parsed().getIssuerUniqueID();
    }

    @Override
    public boolean[] getSubjectUniqueID() {
        return parsed().getSubjectUniqueID();
    }

    @Override
    public boolean[] getKeyUsage() {
        return parsed().getKeyUsage();
    }

    @Override
    public List<String> getExtendedKeyUsage() throws CertificateParsingException {
        return parsed().getExtendedKeyUsage();
    }

    @Override
    public int getBasicConstraints() {
        return parsed().getBasicConstraints();
    }

    @Override
    public Collection<List<?>> getSubjectAlternativeNames() throws CertificateParsingException {
        return parsed().getSubjectAlternativeNames();
    }

    @Override
    public Collection<List<?>> getIssuerAlternativeNames() throws CertificateParsingException {
        return parsed().getIssuerAlternativeNames();
    }

    @Override
    public boolean hasUnsupportedCriticalExtension() {
        return parsed().hasUnsupportedCriticalExtension();
    }

    @Override
    public Set<String> getCriticalExtensionOIDs() {
        return parsed().getCriticalExtensionOIDs();
    }

    @Override
    public Set<String> getNonCriticalExtensionOIDs() {
        return parsed().getNonCriticalExtensionOIDs();
    }

    @Override
    public byte[] getExtensionValue(String oid) {
        return parsed().getExtensionValue(oid);
    }

    @Override
    public PublicKey getPublicKey() {
        return parsed().getPublicKey();
    }

    @Override
    public void verify(PublicKey key) throws CertificateException, NoSuchAlgorithmException, InvalidKeyException,
            NoSuchProviderException, SignatureException {
        parsed().verify(key);
    }

    @Override
    public void verify(PublicKey key, String sigProvider) throws CertificateException, NoSuchAlgorithmException,
            InvalidKeyException, NoSuchProviderException, SignatureException {
        parsed().verify(key, sigProvider);
    }

    @Override
    public void verify(PublicKey key, Provider sigProvider) throws CertificateException, NoSuchAlgorithmException,
            InvalidKeyException, SignatureException {
        parsed().verify(key, sigProvider);
    }

    @Override
    public String toString() {
        return parsed().toString();
    }
}

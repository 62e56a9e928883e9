// CertificateAuthority -- a development CA: creates itself, and issues server and client certificates.
package io.elastikey.protocol.pki;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.Date;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.AuthorityKeyIdentifier;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.IPAddress;

/**
 * A single-level certificate authority for development and tests: enough for mutual TLS between the edge and the
 * key server without an outside PKI. Not meant for production trust.
 *
 * <p>The CA certificate is self-signed with {@code basicConstraints CA:true, pathlen:0} (it issues leaves only) and
 * {@code keyUsage keyCertSign, cRLSign}. Leaves carry what browsers and JSSE check: {@code CA:false}, a key usage
 * that fits their key, an extended key usage for their {@link Purpose}, DNS and IP subject alternative names, and
 * subject and authority key identifiers so chains build unambiguously. Serial numbers are 128 random bits, as the
 * CA/Browser Forum asks (at least 64), so two certificates never share one even across CAs.
 *
 * <p>Certificates are assembled with Bouncy Castle's builder and signed and decoded by the JDK's default
 * providers; Bouncy Castle is never installed as a provider. Instances are immutable and safe to share between
 * threads.
 */
public final class CertificateAuthority {
    /** What a leaf certificate is for; decides its extended key usage and key usage. */
    public enum Purpose {
        /** A TLS server: extended key usage serverAuth. */
        SERVER(KeyPurposeId.id_kp_serverAuth),
        /** A TLS client: extended key usage clientAuth. */
        CLIENT(KeyPurposeId.id_kp_clientAuth);

        private final KeyPurposeId keyPurpose;

        Purpose(KeyPurposeId keyPurpose) {
            this.keyPurpose = keyPurpose;
        }
    }

    /** A DNS name, possibly with a leading wildcard label; underscores allowed as container names use them. */
    private static final String DNS_LABEL = "[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?";
    private static final Pattern DNS_NAME = Pattern.compile("(\\*\\.)?" + DNS_LABEL + "(\\." + DNS_LABEL + ")*\\.?");

    private final X509Certificate certificate;
    private final PrivateKey privateKey;
    private final KeyType keyType;
    private final AuthorityKeyIdentifier authorityKeyIdentifier;

    private CertificateAuthority(X509Certificate certificate, PrivateKey privateKey, KeyType keyType)
            throws GeneralSecurityException {
        this.certificate = certificate;
        this.privateKey = privateKey;
        this.keyType = keyType;
        this.authorityKeyIdentifier = authorityKeyIdentifier(certificate);
    }

    /**
     * Creates a CA with a new key of {@code keyType} and a self-signed certificate whose subject is
     * {@code CN=commonName}.
     */
    public static CertificateAuthority create(String commonName, KeyType keyType, Validity validity)
            throws GeneralSecurityException {
        return create(commonName, keyType.generate(), validity);
    }

    /** As {@link #create(String, KeyType, Validity)} with a key pair the caller made, e.g. one cached by tests. */
    static CertificateAuthority create(String commonName, KeyPair keyPair, Validity validity)
            throws GeneralSecurityException {
        KeyType type = keyTypeOf(keyPair.getPublic());
        X500Name name = commonName(commonName);
        X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(name, serialNumber(),
                Date.from(validity.notBefore()), Date.from(validity.notAfter()), name, keyPair.getPublic());
        try {
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
            builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            builder.addExtension(Extension.subjectKeyIdentifier, false,
                    new JcaX509ExtensionUtils().createSubjectKeyIdentifier(keyPair.getPublic()));
        } catch (CertIOException e) {
            throw new CertificateEncodingException("cannot encode the extensions of CA " + commonName, e);
        }
        X509Certificate certificate = sign(builder, keyPair.getPrivate(), type);
        return new CertificateAuthority(certificate, keyPair.getPrivate(), type);
    }

    /**
     * A CA from its certificate and private key, e.g. read back from disk. Checks that the certificate may issue
     * certificates and that the key is its own, so a mixed-up pair fails here rather than in a distant handshake.
     *
     * @throws CertificateException when the certificate is not a CA certificate
     * @throws InvalidKeyException when the key is of an unsupported type or does not belong to the certificate
     */
    public static CertificateAuthority load(X509Certificate certificate, PrivateKey privateKey)
            throws GeneralSecurityException {
        String subject = certificate.getSubjectX500Principal().getName();
        boolean[] keyUsage = certificate.getKeyUsage();
        if (certificate.getBasicConstraints() < 0 || (keyUsage != null && !keyUsage[5])) {
            throw new CertificateException("certificate " + subject + " is not a CA certificate "
                    + "(it needs basicConstraints CA:true and, if it has a key usage, keyCertSign)");
        }
        KeyType type = keyTypeOf(certificate.getPublicKey());
        if (!type.matches(privateKey, certificate.getPublicKey())) {
            throw new InvalidKeyException("the private key does not belong to CA certificate " + subject);
        }
        return new CertificateAuthority(certificate, privateKey, type);
    }

    /** The self-signed CA certificate: what peers put in their trust store. */
    public X509Certificate certificate() {
        return certificate;
    }

    /** The CA's private key, for writing it out; handle with care. */
    public PrivateKey privateKey() {
        return privateKey;
    }

    /** The type of the CA's key, which decides the signature algorithm of every certificate it issues. */
    public KeyType keyType() {
        return keyType;
    }

    /**
     * Issues a TLS server certificate for a new key of {@code keyType}.
     *
     * @param subjectAltNames DNS names and IP addresses (v4 or v6 literals) the server answers to; at least one
     * @throws IllegalArgumentException when {@code subjectAltNames} is empty or holds something that is neither
     */
    public IssuedCertificate issueServer(String commonName, List<String> subjectAltNames, KeyType keyType,
            Validity validity) throws GeneralSecurityException {
        return issue(Purpose.SERVER, commonName, subjectAltNames, keyType, validity);
    }

    /**
     * Issues a TLS client certificate for a new key of {@code keyType}; the server identifies the client by
     * {@code commonName}.
     *
     * @param subjectAltNames DNS names and IP addresses, possibly none
     */
    public IssuedCertificate issueClient(String commonName, List<String> subjectAltNames, KeyType keyType,
            Validity validity) throws GeneralSecurityException {
        return issue(Purpose.CLIENT, commonName, subjectAltNames, keyType, validity);
    }

    /**
     * Certifies a public key whose private half lives elsewhere, which is the point of split TLS: the edge presents
     * a certificate while only the key server holds the key.
     *
     * @param subjectKey a key of a supported {@link KeyType}
     * @param subjectAltNames DNS names and IP addresses; at least one for {@link Purpose#SERVER}
     */
    public X509Certificate certify(PublicKey subjectKey, Purpose purpose, String commonName,
            List<String> subjectAltNames, Validity validity) throws GeneralSecurityException {
        GeneralNames altNames = subjectAltNames(subjectAltNames);
        if (purpose == Purpose.SERVER && altNames == null) {
            throw new IllegalArgumentException("a server certificate needs at least one DNS or IP subject alt name");
        }
        X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(certificate, serialNumber(),
                Date.from(validity.notBefore()), Date.from(validity.notAfter()), commonName(commonName), subjectKey);
        try {
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            builder.addExtension(Extension.keyUsage, true, keyUsage(purpose, keyTypeOf(subjectKey)));
            builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose.keyPurpose));
            if (altNames != null) {
                builder.addExtension(Extension.subjectAlternativeName, false, altNames);
            }
            builder.addExtension(Extension.subjectKeyIdentifier, false,
                    new JcaX509ExtensionUtils().createSubjectKeyIdentifier(subjectKey));
            builder.addExtension(Extension.authorityKeyIdentifier, false, authorityKeyIdentifier);
        } catch (CertIOException e) {
            throw new CertificateEncodingException("cannot encode the extensions of " + commonName, e);
        }
        return sign(builder, privateKey, keyType);
    }

    /** Whether this CA signed {@code candidate}: its issuer is our subject and our key verifies its signature. */
    public boolean hasIssued(X509Certificate candidate) {
        if (!candidate.getIssuerX500Principal().equals(certificate.getSubjectX500Principal())) {
            return false;
        }
        try {
            candidate.verify(certificate.getPublicKey());
            return true;
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    @Override
    public String toString() {
        return "CertificateAuthority[" + certificate.getSubjectX500Principal().getName() + ", " + keyType + "]";
    }

    private IssuedCertificate issue(Purpose purpose, String commonName, List<String> subjectAltNames,
            KeyType subjectKeyType, Validity validity) throws GeneralSecurityException {
        KeyPair keyPair = subjectKeyType.generate();
        X509Certificate issued = certify(keyPair.getPublic(), purpose, commonName, subjectAltNames, validity);
        return new IssuedCertificate(issued, keyPair.getPrivate(), List.of(issued, certificate));
    }

    /**
     * RSA server keys may also decrypt (TLS 1.2 RSA key exchange), hence keyEncipherment; every other key only
     * signs handshakes.
     */
    private static KeyUsage keyUsage(Purpose purpose, KeyType subjectKeyType) {
        boolean rsa = subjectKeyType.keyAlgorithm().equals("RSA");
        return new KeyUsage(purpose == Purpose.SERVER && rsa
                ? KeyUsage.digitalSignature | KeyUsage.keyEncipherment
                : KeyUsage.digitalSignature);
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey signingKey, KeyType type)
            throws GeneralSecurityException {
        ContentSigner signer;
        try {
            signer = new JcaContentSignerBuilder(type.signatureAlgorithm()).build(signingKey);
        } catch (OperatorCreationException e) {
            throw new InvalidKeyException("cannot sign with " + type.signatureAlgorithm(), e);
        }
        return new JcaX509CertificateConverter().getCertificate(builder.build(signer));
    }

    /** 128 random bits, positive as RFC 5280 requires, so at most 17 DER octets of the 20 allowed. */
    private static BigInteger serialNumber() {
        BigInteger serial;
        do {
            serial = new BigInteger(128, KeyType.random());
        } while (serial.signum() == 0);
        return serial;
    }

    /** Points leaves at the CA's own subject key identifier when it has one, so chains built by others match. */
    private static AuthorityKeyIdentifier authorityKeyIdentifier(X509Certificate ca) throws GeneralSecurityException {
        byte[] extension = ca.getExtensionValue(Extension.subjectKeyIdentifier.getId());
        if (extension == null) {
            return new JcaX509ExtensionUtils().createAuthorityKeyIdentifier(ca.getPublicKey());
        }
        byte[] keyIdentifier = ASN1OctetString.getInstance(ASN1OctetString.getInstance(extension).getOctets())
                .getOctets();
        return new AuthorityKeyIdentifier(keyIdentifier);
    }

    private static KeyType keyTypeOf(PublicKey key) throws InvalidKeyException {
        try {
            return KeyType.of(key);
        } catch (IllegalArgumentException e) {
            throw new InvalidKeyException(e.getMessage(), e);
        }
    }

    private static X500Name commonName(String commonName) {
        if (Objects.requireNonNull(commonName, "commonName").isBlank()) {
            throw new IllegalArgumentException("the common name must not be blank");
        }
        return new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, commonName).build();
    }

    /** The names as GeneralNames, each an IP address when it parses as one and a DNS name otherwise; or null. */
    private static GeneralNames subjectAltNames(List<String> names) {
        if (names.isEmpty()) {
            return null;
        }
        GeneralName[] altNames = new GeneralName[names.size()];
        for (int i = 0; i < altNames.length; i++) {
            String name = names.get(i).strip();
            if (IPAddress.isValid(name)) {
                altNames[i] = new GeneralName(GeneralName.iPAddress, name);
            } else if (DNS_NAME.matcher(name).matches() && name.length() <= 253) {
                altNames[i] = new GeneralName(GeneralName.dNSName, name);
            } else {
                throw new IllegalArgumentException("subject alt name '" + name + "' is neither an IP address nor a "
                        + "DNS name (non-ASCII names must be given in their xn-- form)");
            }
        }
        return new GeneralNames(altNames);
    }
}

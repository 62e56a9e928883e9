// ClientIdentity -- who is on the other end of a mutual-TLS connection, as authorization and audit see it.
package io.elastikey.keyserver.authz;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

import javax.naming.InvalidNameException;
import javax.naming.NamingException;
import javax.naming.directory.Attribute;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.security.auth.x500.X500Principal;

/**
 * The names a client certificate gives its holder, extracted once per connection from the certificate TLS has
 * already verified, and put in the normal form of {@link Names} so that {@link AccessPolicy#grantsFor} only looks
 * them up.
 *
 * <p>What it holds: the SHA-256 fingerprint of the certificate (hex of the digest of its DER encoding: the one name
 * no other certificate can share), the most specific subject common name, and the subject alternative names of
 * the four kinds clients are identified by (DNS, IP address, URI such as a SPIFFE ID, e-mail). Other SAN kinds are
 * ignored. The certificate itself is not kept.
 *
 * <p>{@link #shortName()} is the form the audit log prints: readable, bounded, and unambiguous enough to find the
 * certificate again. Instances are immutable and may be shared between threads; equality is by fingerprint.
 */
public final class ClientIdentity {
    private static final int SAN_EMAIL = 1;
    private static final int SAN_DNS = 2;
    private static final int SAN_URI = 6;
    private static final int SAN_IP = 7;
    /** 64 bits of the fingerprint: enough to tell a renewed certificate from its predecessor in the audit log. */
    private static final int SHORT_FINGERPRINT_CHARS = 16;
    private static final int SHORT_NAME_MAX_CHARS = 64;

    private final String fingerprint;
    private final String commonName;
    private final List<String> dnsNames;
    private final List<String> ipAddresses;
    private final List<String> uris;
    private final List<String> emails;
    private final String shortName;

    private ClientIdentity(String fingerprint, String commonName, List<String> dnsNames, List<String> ipAddresses,
            List<String> uris, List<String> emails) {
        this.fingerprint = fingerprint;
        this.commonName = commonName;
        this.dnsNames = List.copyOf(dnsNames);
        this.ipAddresses = List.copyOf(ipAddresses);
        this.uris = List.copyOf(uris);
        this.emails = List.copyOf(emails);
        this.shortName = shortName(fingerprint, commonName, dnsNames, uris, emails, ipAddresses);
    }

    /**
     * The identity of the holder of {@code certificate}, which the caller has verified (the TLS handshake did).
     *
     * @throws CertificateException when the certificate cannot be encoded or its extensions cannot be parsed
     */
    public static ClientIdentity of(X509Certificate certificate) throws CertificateException {
        String fingerprint = Names.hex(sha256(certificate.getEncoded()));
        List<String> dns = new ArrayList<>();
        List<String> ips = new ArrayList<>();
        List<String> uris = new ArrayList<>();
        List<String> emails = new ArrayList<>();
        Collection<List<?>> altNames = certificate.getSubjectAlternativeNames();
        for (List<?> altName : altNames == null ? List.<List<?>>of() : altNames) {
            int kind = (Integer) altName.get(0);
            if (!(altName.get(1) instanceof String value)) {
                continue;
            }
            switch (kind) {
                case SAN_DNS -> addIfValid(dns, Names.dnsPattern(value));
                case SAN_IP -> addIfValid(ips, Names.ipAddress(value));
                case SAN_URI -> uris.add(value);
                case SAN_EMAIL -> addIfValid(emails, Names.email(value));
                default -> { }
            }
        }
        return new ClientIdentity(fingerprint, commonName(certificate.getSubjectX500Principal()), dns, ips, uris,
                emails);
    }

    /** SHA-256 of the certificate's DER encoding, 64 lower-case hex digits. */
    public String fingerprint() {
        return fingerprint;
    }

    /** The subject's most specific common name, exactly as in the certificate. */
    public Optional<String> commonName() {
        return Optional.ofNullable(commonName);
    }

    /** DNS subject alternative names, lower case. */
    public List<String> dnsNames() {
        return dnsNames;
    }

    /** IP address subject alternative names, as {@link java.net.InetAddress#getHostAddress()} prints them. */
    public List<String> ipAddresses() {
        return ipAddresses;
    }

    /** URI subject alternative names (e.g. SPIFFE IDs), exactly as in the certificate. */
    public List<String> uris() {
        return uris;
    }

    /** E-mail (rfc822Name) subject alternative names, domain in lower case. */
    public List<String> emails() {
        return emails;
    }

    /**
     * A bounded printable form for logs: the best name (common name, else the first DNS, URI, e-mail or IP SAN),
     * a slash, and the first 16 hex digits of the fingerprint; e.g. {@code edge-eu-1/3a7b9c1d4e5f6a7b}. Control
     * characters become {@code ?}, and names longer than 64 characters are cut.
     */
    public String shortName() {
        return shortName;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ClientIdentity identity && fingerprint.equals(identity.fingerprint);
    }

    @Override
    public int hashCode() {
        return fingerprint.hashCode();
    }

    @Override
    public String toString() {
        return shortName;
    }

    private static void addIfValid(List<String> names, String normalized) {
        if (normalized != null) {
            names.add(normalized);
        }
    }

    /** The last (most specific, as RFC 6125 picks it) CN of the subject, or {@code null}. */
    private static String commonName(X500Principal subject) throws CertificateException {
        try {
            String commonName = null;
            for (Rdn rdn : new LdapName(subject.getName(X500Principal.RFC2253)).getRdns()) {
                Attribute cn = rdn.toAttributes().get("CN");
                if (cn != null && cn.get() instanceof String value) {
                    commonName = value;
                }
            }
            return commonName;
        } catch (InvalidNameException e) {
            throw new CertificateException("cannot parse the subject " + subject, e);
        } catch (NamingException e) {
            throw new CertificateException("cannot read the common name of " + subject, e);
        }
    }

    private static String shortName(String fingerprint, String commonName, List<String> dns, List<String> uris,
            List<String> emails, List<String> ips) {
        String name = commonName;
        for (List<String> candidates : List.of(dns, uris, emails, ips)) {
            if (name == null && !candidates.isEmpty()) {
                name = candidates.get(0);
            }
        }
        String prefix = fingerprint.substring(0, SHORT_FINGERPRINT_CHARS);
        return name == null || name.isEmpty() ? prefix : printable(name) + "/" + prefix;
    }

    private static String printable(String name) {
        String bounded = name.length() > SHORT_NAME_MAX_CHARS ? name.substring(0, SHORT_NAME_MAX_CHARS) : name;
        StringBuilder out = new StringBuilder(bounded.length());
        bounded.codePoints().forEach(c -> out.appendCodePoint(Character.isISOControl(c) ? '?' : c));
        return out.toString();
    }

    private static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}

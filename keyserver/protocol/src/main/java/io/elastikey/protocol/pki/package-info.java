// package-info -- the development PKI: what it is for and the rules it keeps.
/**
 * A development PKI: keys, a certificate authority and the certificates that let the edge and the key server speak
 * mutual TLS on a laptop or in CI without an outside CA. It is not a production CA; production deployments bring
 * their own certificates, and read them with the same {@link io.elastikey.protocol.pki.Pem} code.
 *
 * <p>The parts, smallest first:
 * <ul>
 *   <li>{@link io.elastikey.protocol.pki.KeyType}: the six key types (RSA 2048/3072/4096, P-256, P-384, Ed25519),
 *       key generation and the signature algorithm each key signs certificates with.
 *   <li>{@link io.elastikey.protocol.pki.Pem} and {@link io.elastikey.protocol.pki.PemFiles}: PEM text and files,
 *       with {@link io.elastikey.protocol.pki.PemException} for input that is not what was asked for.
 *   <li>{@link io.elastikey.protocol.pki.CertificateAuthority}: a self-signed CA that issues server and client
 *       certificates ({@link io.elastikey.protocol.pki.IssuedCertificate}) for a
 *       {@link io.elastikey.protocol.pki.Validity} window.
 *   <li>{@link io.elastikey.protocol.pki.DevPki}: the on-disk directory of CA, server and client pairs that
 *       {@code ./elastikey pki init} creates; its layout is described there.
 * </ul>
 *
 * <p>Rules the package keeps, and why:
 * <ul>
 *   <li>Keys are generated, signed with and decoded by the JDK's own providers, so JSSE takes them as they are.
 *       Bouncy Castle builds certificates and parses PEM and ASN.1, and is never registered as a global provider:
 *       a library that calls {@code Security.addProvider} changes algorithm choices for the whole process.
 *   <li>Certificates follow RFC 5280 and what TLS peers check in practice: critical basic constraints and key
 *       usage, extended key usage per purpose, subject alternative names (hostname checks ignore the common name),
 *       key identifiers, and 128-bit random serial numbers (the CA/Browser Forum asks for at least 64 bits).
 *   <li>Error messages say what was expected and what was found, and never contain key bytes; private key files
 *       are created owner-only and never overwritten.
 * </ul>
 */
package io.elastikey.protocol.pki;

package io.elastikey.edge.tls;

import java.util.List;

/**
 * One certificate chain the edge can present, and the key server's name for its private key.
 *
 * @param alias    the key manager's name for this chain: the hex SHA-1 of the leaf certificate, so a changed file
 *                 is a new alias and never meets a stale cached chain
 * @param keyType  {@code RSA} or {@code EC}, the key types Netty's key manager asks for
 * @param names    the DNS names the leaf covers (wildcards as {@code *.example.com}), lower case
 * @param chain    leaf first, then its issuers (an issuer shared by many chains is one object)
 * @param file     the name of the file it was read from
 * @param stamp    the file's {@link io.elastikey.protocol.config.FileStamp} when it was read: a reload reuses this
 *                 entry while the file's stamp is the same
 */
public record CertificateEntry(String alias, String keyType, List<String> names, EncodedCertificate[] chain,
                               String file, long stamp) {

    public EncodedCertificate leaf() {
        return chain[0];
    }

    /** The hex SHA-256 of the leaf's SubjectPublicKeyInfo, the {@code spki} sent to the key server. */
    public String keyId() {
        return leaf().keyId();
    }

    @Override
    public String toString() {
        return file + " (" + keyType + ", " + names + ")";
    }
}

package io.elastikey.edge.tls;

import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * One certificate chain the edge can present, and the key server's name for its private key.
 *
 * @param alias    the key manager's name for this chain: the hex SHA-1 of the leaf certificate, so a changed file
 *                 is a new alias and never meets a stale cached chain
 * @param keyId    the hex SHA-256 of the leaf's SubjectPublicKeyInfo, the {@code spki} sent to the key server
 * @param keyType  {@code RSA} or {@code EC}, the key types Netty's key manager asks for
 * @param names    the DNS names the leaf covers (wildcards as {@code *.example.com}), lower case
 * @param chain    leaf first, then its issuers
 * @param file     where it was read from
 */
public record CertificateEntry(String alias, String keyId, String keyType, List<String> names,
                               X509Certificate[] chain, Path file) {

    public X509Certificate leaf() {
        return chain[0];
    }

    @Override
    public String toString() {
        return file.getFileName() + " (" + keyType + ", " + names + ")";
    }
}

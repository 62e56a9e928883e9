// ChainPem -- certificate chains as stored: PEM text, leaf first; parsing and splitting.
package io.elastikey.keyserver.keys;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Certificate chains are stored as the PEM text an operator would put in a file, so export is a copy and no
 * re-encoding: {@code -----BEGIN CERTIFICATE-----} blocks, leaf first. Public data only.
 */
final class ChainPem {
    private static final String END = "-----END CERTIFICATE-----\n";
    private static final Base64.Encoder BASE64 = Base64.getMimeEncoder(64, new byte[] {'\n'});

    private ChainPem() {
    }

    static byte[] encode(List<X509Certificate> chain) {
        StringBuilder pem = new StringBuilder(1024 * chain.size());
        for (X509Certificate certificate : chain) {
            try {
                pem.append("-----BEGIN CERTIFICATE-----\n")
                        .append(BASE64.encodeToString(certificate.getEncoded())).append('\n').append(END);
            } catch (CertificateException e) {
                throw new IllegalArgumentException("certificate " + certificate.getSubjectX500Principal()
                        + " cannot be encoded", e);
            }
        }
        return pem.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** The certificates of a stored chain, leaf first. */
    static List<X509Certificate> decode(byte[] pem) throws CertificateException {
        List<X509Certificate> chain = new ArrayList<>();
        CertificateFactory factory = CertificateFactory.getInstance("X.509");
        for (var certificate : factory.generateCertificates(new ByteArrayInputStream(pem))) {
            chain.add((X509Certificate) certificate);
        }
        if (chain.isEmpty()) {
            throw new CertificateException("no certificate in the stored chain");
        }
        return chain;
    }

    /** The PEM text of the whole chain, or of its leaf only. */
    static String text(byte[] pem, boolean wholeChain) {
        String text = new String(pem, StandardCharsets.US_ASCII);
        if (wholeChain) {
            return text;
        }
        int end = text.indexOf(END);
        return end < 0 ? text : text.substring(0, end + END.length());
    }
}

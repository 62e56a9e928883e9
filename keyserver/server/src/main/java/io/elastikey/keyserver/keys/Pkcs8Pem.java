// Pkcs8Pem -- PKCS#8 DER to PEM and back as byte arrays, so every copy of a private key can be wiped.
package io.elastikey.keyserver.keys;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;

/**
 * The {@code -----BEGIN PRIVATE KEY-----} form of a PKCS#8 key, the plaintext that {@link Sealer} seals.
 *
 * <p>{@link io.elastikey.protocol.pki.Pem} does the same with {@link String}s, which cannot be wiped and stay in
 * the heap until collected; here every intermediate is a {@code byte[]} the caller (or this class) fills with
 * zeros once done. Only the form written by {@link #encode} needs to be read back, so {@link #decode} is strict.
 */
final class Pkcs8Pem {
    private static final byte[] BEGIN = "-----BEGIN PRIVATE KEY-----\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] END = "-----END PRIVATE KEY-----\n".getBytes(StandardCharsets.US_ASCII);
    private static final Base64.Encoder ENCODER = Base64.getMimeEncoder(64, new byte[] {'\n'});

    private Pkcs8Pem() {
    }

    /** PEM text (US-ASCII bytes) of PKCS#8 {@code der}. */
    static byte[] encode(byte[] der) {
        byte[] body = ENCODER.encode(der);
        byte[] pem = new byte[BEGIN.length + body.length + 1 + END.length];
        System.arraycopy(BEGIN, 0, pem, 0, BEGIN.length);
        System.arraycopy(body, 0, pem, BEGIN.length, body.length);
        pem[BEGIN.length + body.length] = '\n';
        System.arraycopy(END, 0, pem, BEGIN.length + body.length + 1, END.length);
        Arrays.fill(body, (byte) 0);
        return pem;
    }

    /**
     * The DER inside PEM text written by {@link #encode}.
     *
     * @throws IllegalArgumentException when {@code pem} is not of that form; the message quotes nothing
     */
    static byte[] decode(byte[] pem) {
        int bodyLength = pem.length - BEGIN.length - END.length;
        if (bodyLength <= 0 || !startsWith(pem, BEGIN, 0) || !startsWith(pem, END, pem.length - END.length)) {
            throw new IllegalArgumentException("not a PRIVATE KEY PEM block");
        }
        byte[] body = Arrays.copyOfRange(pem, BEGIN.length, BEGIN.length + bodyLength);
        try {
            return Base64.getMimeDecoder().decode(body);
        } finally {
            Arrays.fill(body, (byte) 0);
        }
    }

    private static boolean startsWith(byte[] data, byte[] prefix, int at) {
        return Arrays.equals(data, at, at + prefix.length, prefix, 0, prefix.length);
    }
}

package io.elastikey.protocol.ski;

import java.util.Objects;

/**
 * One SKI request, decoded. Which of {@code hash} and {@code scheme} is set depends on the
 * method: {@code hash} for {@link SkiMethod#ECDHE} and the {@code *-DIGEST} methods
 * ({@link SkiMethod#usesHash()}), {@code scheme} for {@link SkiMethod#SIGN}, neither for the RSA
 * decryptions. The {@code input} array is owned by the request.
 *
 * @param protocol the {@code protocol} field as sent ({@code "TLS 1.2"}, ...), or {@code null}
 * @param method   the operation
 * @param hash     the digest for {@code ECDHE} and the {@code *-DIGEST} methods, else {@code null}
 * @param scheme   the TLS 1.3 scheme for {@code SIGN}, else {@code null}
 * @param spki     the key identifier as sent (hex, either case)
 * @param input    the decoded {@code input}
 */
public record SkiRequest(String protocol, SkiMethod method, SkiHash hash, SignatureScheme scheme,
                         String spki, byte[] input) {

    public SkiRequest {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(spki, "spki");
        Objects.requireNonNull(input, "input");
    }

    public static SkiRequest rsa(String spki, byte[] encryptedPremaster) {
        return new SkiRequest("TLS 1.2", SkiMethod.RSA, null, null, spki, encryptedPremaster);
    }

    public static SkiRequest rsaRaw(String spki, byte[] block) {
        return new SkiRequest("TLS 1.2", SkiMethod.RSA_RAW, null, null, spki, block);
    }

    public static SkiRequest ecdhe(String spki, SkiHash hash, byte[] toSign) {
        return new SkiRequest("TLS 1.2", SkiMethod.ECDHE, hash, null, spki, toSign);
    }

    public static SkiRequest sign(String spki, SignatureScheme scheme, byte[] toSign) {
        return new SkiRequest("TLS 1.3", SkiMethod.SIGN, null, scheme, spki, toSign);
    }

    /**
     * A signature of a hash value the caller computed: {@code method} is one of the {@code *-DIGEST} methods and
     * {@code digest} the value of {@code hash} (36 bytes of MD5 || SHA-1 for {@link SkiHash#MD5_SHA1}).
     */
    public static SkiRequest signDigest(SkiMethod method, String spki, SkiHash hash, byte[] digest) {
        if (!method.signsDigest()) {
            throw new IllegalArgumentException(method.wireName() + " does not sign a digest");
        }
        return new SkiRequest("TLS 1.2", method, Objects.requireNonNull(hash, "hash"), null, spki, digest);
    }

    @Override
    public String toString() {
        // Never the input: it is a pre-master secret or the data of a handshake.
        return "SkiRequest[method=" + method.wireName()
                + (hash != null ? ", hash=" + hash.wireName() : "")
                + (scheme != null ? ", scheme=" + scheme.wireName() : "")
                + ", spki=" + spki + ", input=" + input.length + " bytes]";
    }
}

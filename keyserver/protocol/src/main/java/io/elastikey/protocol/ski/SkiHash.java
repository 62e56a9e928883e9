package io.elastikey.protocol.ski;

/**
 * The digest an {@code ECDHE} request names in its {@code hash} field.
 *
 * <p>{@code MD5-SHA1} is the TLS 1.0/1.1 form: the 36-byte concatenation of MD5 and SHA-1,
 * signed by RSA without a DigestInfo and by ECDSA as the "digest" itself.
 */
public enum SkiHash {
    MD5_SHA1("MD5-SHA1", null, 36),
    SHA1("SHA1", "SHA-1", 20),
    SHA224("SHA-224", "SHA-224", 28),
    SHA256("SHA-256", "SHA-256", 32),
    SHA384("SHA-384", "SHA-384", 48),
    SHA512("SHA-512", "SHA-512", 64);

    private static final SkiHash[] VALUES = values();

    private final String wireName;
    private final String jcaName;
    private final int length;

    SkiHash(String wireName, String jcaName, int length) {
        this.wireName = wireName;
        this.jcaName = jcaName;
        this.length = length;
    }

    /** The name on the wire, as in the {@code hash} field. */
    public String wireName() {
        return wireName;
    }

    /** The JCA {@code MessageDigest} name, or {@code null} for {@link #MD5_SHA1} (two digests). */
    public String jcaName() {
        return jcaName;
    }

    /** The digest length in bytes. */
    public int length() {
        return length;
    }

    /**
     * The hash with this wire name, or {@code null}. {@code "SHA-1"} is accepted beside the
     * draft's {@code "SHA1"} because clients send both.
     */
    public static SkiHash fromWire(String name) {
        if ("SHA-1".equals(name)) {
            return SHA1;
        }
        for (SkiHash hash : VALUES) {
            if (hash.wireName.equals(name)) {
                return hash;
            }
        }
        return null;
    }
}

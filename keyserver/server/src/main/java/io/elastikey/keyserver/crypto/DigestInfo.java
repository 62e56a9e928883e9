// DigestInfo -- the DER DigestInfo that PKCS#1 v1.5 signatures wrap around a hash value.
package io.elastikey.keyserver.crypto;

import io.elastikey.protocol.ski.SkiHash;

/**
 * {@code DigestInfo ::= SEQUENCE { AlgorithmIdentifier, OCTET STRING }} for each hash, written as the fixed DER
 * prefixes of RFC 8017 section 9.2 note 1 followed by the value: the encoding never varies, so there is nothing to
 * gain from an ASN.1 encoder here.
 */
final class DigestInfo {
    private static final byte[] SHA1 = hex("3021300906052b0e03021a05000414");
    private static final byte[] SHA224 = hex("302d300d06096086480165030402040500041c");
    private static final byte[] SHA256 = hex("3031300d060960864801650304020105000420");
    private static final byte[] SHA384 = hex("3041300d060960864801650304020205000430");
    private static final byte[] SHA512 = hex("3051300d060960864801650304020305000440");

    private DigestInfo() {
    }

    /** The DER DigestInfo of {@code value}, a hash of {@code hash} (not MD5-SHA1, which has none). */
    static byte[] of(SkiHash hash, byte[] value) {
        byte[] prefix = switch (hash) {
            case SHA1 -> SHA1;
            case SHA224 -> SHA224;
            case SHA256 -> SHA256;
            case SHA384 -> SHA384;
            case SHA512 -> SHA512;
            case MD5_SHA1 -> throw new IllegalArgumentException("MD5-SHA1 has no DigestInfo");
        };
        byte[] encoded = new byte[prefix.length + value.length];
        System.arraycopy(prefix, 0, encoded, 0, prefix.length);
        System.arraycopy(value, 0, encoded, prefix.length, value.length);
        return encoded;
    }

    private static byte[] hex(String text) {
        byte[] bytes = new byte[text.length() / 2];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) Integer.parseInt(text, 2 * i, 2 * i + 2, 16);
        }
        return bytes;
    }
}

// P256Pkcs8 -- the private scalar of a P-256 key, read straight out of its PKCS#8 DER (RFC 5208, RFC 5915).
package io.elastikey.keyserver.crypto;

import java.math.BigInteger;
import java.security.spec.InvalidKeySpecException;
import java.util.Arrays;

/**
 * Reads a P-256 {@code PrivateKeyInfo} into a {@link P256ScalarKey}: checks the algorithm ({@code id-ecPublicKey})
 * and the named curve ({@code prime256v1}, in the algorithm's parameters or the key's own), takes the scalar and
 * checks it is in [1, n-1]. An embedded public key is skipped: the store's records are authenticated (AES-GCM over the
 * key ID and the certificate) and the key was checked against its certificate when it was added, so deriving the
 * public key again, the scalar multiplication a provider does here, would only prove what is already known.
 *
 * <p>Strict DER: definite lengths, no trailing bytes. Error messages name the structure, never a byte of it. The
 * caller wipes {@code der}; the only copy made is the key's scalar.
 */
final class P256Pkcs8 {
    private static final int INTEGER = 0x02;
    private static final int OCTET_STRING = 0x04;
    private static final int OID = 0x06;
    private static final int SEQUENCE = 0x30;
    private static final int CURVE_PARAMETERS = 0xA0;
    private static final int PUBLIC_KEY = 0xA1;

    /** 1.2.840.10045.2.1 */
    private static final byte[] EC_PUBLIC_KEY = {0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x02, 0x01};
    /** 1.2.840.10045.3.1.7 */
    private static final byte[] PRIME256V1 = {0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x03, 0x01, 0x07};
    /** The order n of P-256's base point, big-endian. */
    private static final byte[] ORDER = unsigned32(P256ScalarKey.P256.getOrder());

    private P256Pkcs8() {
    }

    static P256ScalarKey parse(byte[] der) throws InvalidKeySpecException {
        Der top = new Der(der, 0, der.length);
        Der info = top.enter(SEQUENCE, "PrivateKeyInfo");
        top.requireEnd("PrivateKeyInfo");
        info.smallInteger("PrivateKeyInfo version", 0, 1);
        Der algorithm = info.enter(SEQUENCE, "the algorithm identifier");
        if (!algorithm.isOid(EC_PUBLIC_KEY)) {
            throw new InvalidKeySpecException("the PKCS#8 key is not an EC key");
        }
        boolean curveNamed = algorithm.hasMore();
        if (curveNamed) {
            requireP256(algorithm);
            algorithm.requireEnd("the algorithm identifier");
        }
        Der key = info.enter(OCTET_STRING, "the private key").enter(SEQUENCE, "ECPrivateKey");
        key.smallInteger("ECPrivateKey version", 1, 1);
        Der scalar = key.enter(OCTET_STRING, "the private scalar");
        while (key.hasMore()) {
            int tag = key.peekTag();
            Der field = key.enter(tag, "an ECPrivateKey field");
            if (tag == CURVE_PARAMETERS) {
                requireP256(field);
                curveNamed = true;
            } else if (tag != PUBLIC_KEY) {
                throw new InvalidKeySpecException("ECPrivateKey has an unknown field");
            }
        }
        if (!curveNamed) {
            throw new InvalidKeySpecException("the PKCS#8 EC key names no curve");
        }
        return new P256ScalarKey(scalar.scalar());
    }

    /** The 32 big-endian bytes of a number below 2^256 (BigInteger adds a sign byte when the top bit is set). */
    private static byte[] unsigned32(BigInteger n) {
        byte[] bytes = n.toByteArray();
        return Arrays.copyOfRange(bytes, bytes.length - P256ScalarKey.SCALAR_LENGTH, bytes.length);
    }

    private static void requireP256(Der parameters) throws InvalidKeySpecException {
        if (!parameters.isOid(PRIME256V1)) {
            throw new InvalidKeySpecException("the PKCS#8 EC key is not on the named curve P-256");
        }
    }

    /** A window [pos, end) of DER being read front to back. */
    private static final class Der {
        private final byte[] bytes;
        private int pos;
        private final int end;

        Der(byte[] bytes, int pos, int end) {
            this.bytes = bytes;
            this.pos = pos;
            this.end = end;
        }

        boolean hasMore() {
            return pos < end;
        }

        int peekTag() throws InvalidKeySpecException {
            if (pos >= end) {
                throw new InvalidKeySpecException("DER ends early");
            }
            return bytes[pos] & 0xff;
        }

        /** Reads one element with {@code tag}; returns a window over its contents. */
        Der enter(int tag, String what) throws InvalidKeySpecException {
            if (peekTag() != tag) {
                throw new InvalidKeySpecException("DER: " + what + " is missing or of the wrong type");
            }
            pos++;
            int length = length(what);
            Der contents = new Der(bytes, pos, pos + length);
            pos += length;
            return contents;
        }

        void requireEnd(String what) throws InvalidKeySpecException {
            if (pos != end) {
                throw new InvalidKeySpecException("DER: bytes after " + what);
            }
        }

        boolean isOid(byte[] oid) throws InvalidKeySpecException {
            Der value = enter(OID, "an object identifier");
            return Arrays.equals(bytes, value.pos, value.end, oid, 0, oid.length);
        }

        void smallInteger(String what, int min, int max) throws InvalidKeySpecException {
            Der value = enter(INTEGER, what);
            if (value.end - value.pos != 1 || bytes[value.pos] < min || bytes[value.pos] > max) {
                throw new InvalidKeySpecException("DER: " + what + " is not supported");
            }
        }

        /** This window as a P-256 scalar: at most 32 bytes (shorter ones are left-padded), in [1, n-1]. */
        byte[] scalar() throws InvalidKeySpecException {
            int length = end - pos;
            if (length == 0 || length > P256ScalarKey.SCALAR_LENGTH) {
                throw new InvalidKeySpecException("the private scalar is not a P-256 scalar");
            }
            byte[] scalar = new byte[P256ScalarKey.SCALAR_LENGTH];
            System.arraycopy(bytes, pos, scalar, scalar.length - length, length);
            if (isZero(scalar) || Arrays.compareUnsigned(scalar, ORDER) >= 0) {
                Arrays.fill(scalar, (byte) 0);
                throw new InvalidKeySpecException("the private scalar is out of range for P-256");
            }
            return scalar;
        }

        private int length(String what) throws InvalidKeySpecException {
            int first = next(what);
            int length;
            if (first < 0x80) {
                length = first;
            } else {
                int octets = first & 0x7f;
                if (octets == 0 || octets > 3) {
                    throw new InvalidKeySpecException("DER: " + what + " has an unsupported length");
                }
                length = 0;
                for (int i = 0; i < octets; i++) {
                    length = (length << 8) | next(what);
                }
            }
            if (length > end - pos) {
                throw new InvalidKeySpecException("DER: " + what + " is longer than what holds it");
            }
            return length;
        }

        private int next(String what) throws InvalidKeySpecException {
            if (pos >= end) {
                throw new InvalidKeySpecException("DER: " + what + " is cut short");
            }
            return bytes[pos++] & 0xff;
        }

        private static boolean isZero(byte[] scalar) {
            int bits = 0;
            for (byte b : scalar) {
                bits |= b;
            }
            return bits == 0;
        }
    }
}

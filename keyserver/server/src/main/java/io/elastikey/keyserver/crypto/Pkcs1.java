package io.elastikey.keyserver.crypto;

import java.util.Arrays;

/**
 * PKCS#1 v1.5 encoding blocks (RFC 8017 sections 7.2 and 9.2), the two pieces the key server
 * does itself instead of leaving them to a provider.
 *
 * <h2>Type 2: the TLS pre-master secret, checked in constant time</h2>
 * A provider's PKCS#1 decryption throws on bad padding: an early exit, and an exception whose
 * cost differs from success, which is the Bleichenbacher oracle. Here the block comes from raw
 * RSA and is checked for exactly one shape, the only one TLS accepts (RFC 5246 section 7.4.7.1):
 * {@code 00 02 PS 00 M} with PS non-zero bytes and M exactly 48 bytes. Because the length of M
 * is fixed, the separator's position is fixed too, so the check needs no search: every byte is
 * visited once, results are combined with bit operations, and the answer (M, or the substitute
 * when the block is bad) is chosen with a mask, never a branch on secret data.
 *
 * <p>The pre-master's first two bytes hold ClientHello.client_version, which this server does
 * not know: the TLS stack calling it compares them, in constant time, as RFC 5246 asks.
 *
 * <h2>Type 1: signatures over MD5 || SHA-1</h2>
 * TLS 1.0/1.1 RSA signatures have no DigestInfo, so no JCA {@code Signature} makes them
 * portably (ACCP 2.5 has no {@code NONEwithRSA}). The block {@code 00 01 FF..FF 00 T} is built
 * here and put through the raw private operation. Nothing in it is secret.
 */
final class Pkcs1 {
    /** The length of a TLS pre-master secret. */
    static final int PREMASTER_LENGTH = 48;

    private Pkcs1() {
    }

    /**
     * The 48-byte message of a valid type-2 block, else {@code substitute}'s first 48 bytes, chosen
     * in constant time. The block is wiped afterwards.
     *
     * @param block      the raw RSA decryption, exactly the modulus length (at least 59 bytes)
     * @param substitute at least 48 bytes, the implicit-rejection answer
     */
    static byte[] premasterOrSubstitute(byte[] block, byte[] substitute) {
        int separator = block.length - PREMASTER_LENGTH - 1;
        int bad = isNonZero(block[0]) | isNonZero(block[1] ^ 0x02) | isNonZero(block[separator]);
        for (int i = 2; i < separator; i++) {
            bad |= isZero(block[i]);
        }
        int keepMessage = bad - 1; // all ones when the block is good, zero when it is bad
        byte[] answer = new byte[PREMASTER_LENGTH];
        for (int i = 0; i < PREMASTER_LENGTH; i++) {
            answer[i] = (byte) ((block[separator + 1 + i] & keepMessage) | (substitute[i] & ~keepMessage));
        }
        Arrays.fill(block, (byte) 0);
        return answer;
    }

    /**
     * The type-1 block {@code 00 01 FF..FF 00 digest} of {@code length} bytes.
     *
     * @throws IllegalArgumentException when the digest leaves fewer than 8 padding bytes
     */
    static byte[] type1(byte[] digest, int length) {
        int padding = length - digest.length - 3;
        if (padding < 8) {
            throw new IllegalArgumentException("a " + digest.length + "-byte digest does not fit a "
                    + length + "-byte block");
        }
        byte[] block = new byte[length];
        block[1] = 0x01;
        Arrays.fill(block, 2, 2 + padding, (byte) 0xFF);
        System.arraycopy(digest, 0, block, length - digest.length, digest.length);
        return block;
    }

    /** 1 when the low byte of {@code b} is zero, else 0; no branch. */
    static int isZero(int b) {
        return ((b & 0xFF) - 1) >>> 31;
    }

    /** 1 when the low byte of {@code b} is non-zero, else 0; no branch. */
    static int isNonZero(int b) {
        return isZero(b) ^ 1;
    }
}

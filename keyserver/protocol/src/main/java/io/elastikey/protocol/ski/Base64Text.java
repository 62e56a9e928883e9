// Base64Text -- strict standard base64 decoding straight from a parser's character buffer.
package io.elastikey.protocol.ski;

import java.util.Arrays;

/**
 * Decodes the standard base64 alphabet (RFC 4648 section 4) from a slice of a {@code char[]}, which is where Jackson
 * keeps a string token's text: the {@code input} field is decoded without first becoming a {@link String}.
 *
 * <p>Why not the JDK's decoder: it reads bytes, not characters, so it would cost a copy per request. Why not
 * Jackson's {@code getBinaryValue}: it skips white space inside the value, and its errors quote the offending
 * character, while an SKI error must never echo request bytes. The rules here match
 * {@link java.util.Base64#getDecoder()}: padding may be left out, but when present it must complete the last
 * quantum ({@code "YQ=="} and {@code "YQ"}, never {@code "YQ="}); no white space, no URL-safe characters; unused
 * low bits of the last character are ignored.
 */
final class Base64Text {
    private static final int[] VALUES = new int[128];

    static {
        Arrays.fill(VALUES, -1);
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        for (int i = 0; i < alphabet.length(); i++) {
            VALUES[alphabet.charAt(i)] = i;
        }
    }

    private Base64Text() {
    }

    /**
     * The bytes {@code text[offset, offset + length)} encode.
     *
     * @throws IllegalArgumentException with a message that names a position, never a character
     */
    static byte[] decode(char[] text, int offset, int length) {
        int end = offset + length;
        int padding = 0;
        if (length >= 2 && text[end - 1] == '=') {
            padding = text[end - 2] == '=' ? 2 : 1;
        }
        int symbols = length - padding;
        if (padding > 0 && length % 4 != 0) {
            throw new IllegalArgumentException("padding does not complete the last group of four");
        }
        if (symbols % 4 == 1) {
            throw new IllegalArgumentException("length " + length + " cannot be base64");
        }
        byte[] out = new byte[symbols / 4 * 3 + Math.max(0, symbols % 4 - 1)];
        int bits = 0;
        int pending = 0;
        int written = 0;
        for (int i = 0; i < symbols; i++) {
            char c = text[offset + i];
            int value = c < 128 ? VALUES[c] : -1;
            if (value < 0) {
                throw new IllegalArgumentException("character " + i + " is not in the base64 alphabet");
            }
            bits = bits << 6 | value;
            pending += 6;
            if (pending >= 8) {
                pending -= 8;
                out[written++] = (byte) (bits >> pending);
            }
        }
        return out;
    }
}

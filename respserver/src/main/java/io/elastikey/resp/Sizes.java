// Sizes -- byte counts as operators and ELASTIC.RESIZE write them: 1048576, 64k, 512m, 1g, 2t.
package io.elastikey.resp;

/**
 * One strict reading of a size for the command line and the wire alike: 1 to 19 decimal digits,
 * then optionally {@code k}, {@code m}, {@code g} or {@code t} (binary units, any case). No sign,
 * no spaces, no fraction, no exponent; a value past {@link Long#MAX_VALUE} bytes is refused, never
 * wrapped.
 */
public final class Sizes {
    private static final long MIB = 1L << 20;

    private Sizes() {
    }

    /** The size {@code text} stands for, or -1 when it is not one. */
    public static long parse(String text) {
        int n = text.length();
        if (n == 0 || n > 20) {
            return -1;
        }
        int shift = switch (Character.toLowerCase(text.charAt(n - 1))) {
            case 'k' -> 10;
            case 'm' -> 20;
            case 'g' -> 30;
            case 't' -> 40;
            default -> 0;
        };
        int digits = shift == 0 ? n : n - 1;
        if (digits == 0 || digits > 19) {
            return -1;
        }
        long v = 0;
        for (int i = 0; i < digits; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
            if (v < 0) {
                return -1;
            }
        }
        return v > (Long.MAX_VALUE >> shift) ? -1 : v << shift;
    }

    /** {@link #parse}, or an {@link IllegalArgumentException} naming {@code setting}. */
    public static long parse(String setting, String text) {
        long v = parse(text.trim());
        if (v < 0) {
            throw new IllegalArgumentException(setting + ": not a size: '" + text + "' (expected e.g. 512m or 1g)");
        }
        return v;
    }

    /** {@code bytes} for people: whole MiB as {@code N MiB}, anything else as bytes. */
    public static String format(long bytes) {
        return bytes != 0 && bytes % MIB == 0 ? bytes / MIB + " MiB" : bytes + " bytes";
    }
}

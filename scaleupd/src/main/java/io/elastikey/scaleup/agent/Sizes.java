// Sizes -- memory sizes as operators write them ("512m", "4g") to and from MiB.
package io.elastikey.scaleup.agent;

import java.util.Locale;

/** Parses and prints sizes in whole MiB: a number with an optional {@code m}, {@code g} or {@code t} suffix. */
public final class Sizes {

    private Sizes() {
    }

    /**
     * {@code "512m"} is 512, {@code "4g"} 4096, {@code "1t"} 1048576; a bare number is MiB; {@code "mb"},
     * {@code "gib"} and the like are accepted. Throws {@link IllegalArgumentException} naming the text otherwise.
     */
    public static long parseMb(String text) {
        String s = text.trim().toLowerCase(Locale.ROOT);
        for (String unit : new String[] {"ib", "b"}) {
            if (s.length() > 1 && s.endsWith(unit) && Character.isLetter(s.charAt(s.length() - unit.length() - 1))) {
                s = s.substring(0, s.length() - unit.length());
                break;
            }
        }
        long factor = 1;
        if (!s.isEmpty()) {
            switch (s.charAt(s.length() - 1)) {
                case 'm' -> factor = 1;
                case 'g' -> factor = 1024;
                case 't' -> factor = 1024 * 1024;
                default -> factor = 0;
            }
            if (factor != 0) {
                s = s.substring(0, s.length() - 1);
            } else {
                factor = 1;
            }
        }
        if (s.isEmpty() || !s.chars().allMatch(Character::isDigit) || s.length() > 13) {
            throw new IllegalArgumentException("not a size in MiB (like 512m, 4g): '" + text + "'");
        }
        return Math.multiplyExact(Long.parseLong(s), factor);
    }

    /** {@code 4096} as {@code "4096 MiB"}; for messages. */
    public static String format(long mb) {
        return mb + " MiB";
    }
}

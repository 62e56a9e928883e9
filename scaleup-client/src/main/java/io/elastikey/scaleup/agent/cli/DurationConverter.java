// DurationConverter -- "20ms", "5s", "2m", "0" on the command line.
package io.elastikey.scaleup.agent.cli;

import picocli.CommandLine.ITypeConverter;

import java.time.Duration;
import java.util.Locale;

/** Reads a whole number with a unit of {@code ms}, {@code s} or {@code m}; a bare {@code 0} is zero. */
final class DurationConverter implements ITypeConverter<Duration> {

    @Override
    public Duration convert(String text) {
        String s = text.trim().toLowerCase(Locale.ROOT);
        if (s.equals("0")) {
            return Duration.ZERO;
        }
        String unit = s.endsWith("ms") ? "ms" : s.endsWith("s") ? "s" : s.endsWith("m") ? "m" : "";
        String digits = s.substring(0, s.length() - unit.length());
        if (unit.isEmpty() || digits.isEmpty() || digits.length() > 12 || !digits.chars().allMatch(Character::isDigit)) {
            throw new IllegalArgumentException("not a duration (like 20ms, 5s, 2m): '" + text + "'");
        }
        long n = Long.parseLong(digits);
        return switch (unit) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            default -> Duration.ofMinutes(n);
        };
    }
}

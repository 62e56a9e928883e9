package io.elastikey.protocol.config;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Locale;

/**
 * Parsers for the value forms settings use: sizes ({@code 16k}, {@code 64MiB}), durations
 * ({@code 250ms}, {@code 10s}, {@code 2m}) and listen addresses ({@code host:port},
 * {@code [::1]:8443}, {@code :8443} for every interface). Each failure names the setting.
 */
public final class Values {
    private Values() {
    }

    public static long size(String setting, String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        if (t.endsWith("ib")) {
            t = t.substring(0, t.length() - 2);
        } else if (t.endsWith("b")) {
            t = t.substring(0, t.length() - 1);
        }
        long unit = switch (t.isEmpty() ? ' ' : t.charAt(t.length() - 1)) {
            case 'k' -> 1L << 10;
            case 'm' -> 1L << 20;
            case 'g' -> 1L << 30;
            case 't' -> 1L << 40;
            default -> 1;
        };
        String digits = unit == 1 ? t : t.substring(0, t.length() - 1).strip();
        try {
            long value = Long.parseLong(digits);
            if (value < 0) {
                throw new NumberFormatException();
            }
            return Math.multiplyExact(value, unit);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new ConfigException(setting + ": '" + text + "' is not a size (examples: 4096, 16k, 64MiB, 2g)");
        }
    }

    public static Duration duration(String setting, String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        if (t.equals("0")) {
            return Duration.ZERO; // the one duration that needs no unit
        }
        try {
            if (t.endsWith("ms")) {
                return nonNegative(setting, text, Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2))));
            }
            if (t.endsWith("s")) {
                return nonNegative(setting, text, Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1))));
            }
            if (t.endsWith("m")) {
                return nonNegative(setting, text, Duration.ofMinutes(Long.parseLong(t.substring(0, t.length() - 1))));
            }
            if (t.endsWith("h")) {
                return nonNegative(setting, text, Duration.ofHours(Long.parseLong(t.substring(0, t.length() - 1))));
            }
        } catch (NumberFormatException e) {
            // fall through to the error below
        }
        throw new ConfigException(setting + ": '" + text + "' is not a duration (examples: 250ms, 10s, 2m, 1h)");
    }

    private static Duration nonNegative(String setting, String text, Duration d) {
        if (d.isNegative()) {
            throw new ConfigException(setting + ": '" + text + "' is negative");
        }
        return d;
    }

    public static InetSocketAddress address(String setting, String text) {
        String t = text.strip();
        int colon = t.lastIndexOf(':');
        if (colon < 0) {
            throw new ConfigException(setting + ": '" + text + "' is not host:port (examples: 127.0.0.1:8443, :8443, [::1]:8443)");
        }
        String host = t.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(t.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new ConfigException(setting + ": '" + text + "' has no valid port");
        }
        if (port < 0 || port > 65535) {
            throw new ConfigException(setting + ": port " + port + " is out of range 0-65535");
        }
        if (host.isEmpty() || host.equals("*")) {
            return new InetSocketAddress(port);
        }
        InetSocketAddress address = new InetSocketAddress(host, port);
        if (address.isUnresolved()) {
            // Binding it later would fail with an UnresolvedAddressException naming nothing.
            throw new ConfigException(setting + ": host '" + host + "' in '" + text
                    + "' does not resolve to an address");
        }
        return address;
    }

    /** {@code true}, {@code yes}, {@code on} or {@code false}, {@code no}, {@code off}, in any case. */
    public static boolean bool(String setting, String text) {
        return switch (text.strip().toLowerCase(Locale.ROOT)) {
            case "true", "yes", "on" -> true;
            case "false", "no", "off" -> false;
            default -> throw new ConfigException(setting + ": '" + text + "' is not true or false");
        };
    }

    public static int positiveInt(String setting, String text) {
        try {
            int value = Integer.parseInt(text.strip());
            if (value > 0) {
                return value;
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        throw new ConfigException(setting + ": '" + text + "' is not a positive whole number");
    }

    public static int nonNegativeInt(String setting, String text) {
        try {
            int value = Integer.parseInt(text.strip());
            if (value >= 0) {
                return value;
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        throw new ConfigException(setting + ": '" + text + "' is not a whole number >= 0");
    }
}

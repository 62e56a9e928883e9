// OptionConverters -- picocli converters for the load generator's SKI names, durations and key orders.
package io.elastikey.perf.ski;

import java.time.Duration;
import java.util.Locale;

import io.elastikey.perf.ski.SkiWorkload.KeyOrder;
import io.elastikey.protocol.ski.SkiHash;
import io.elastikey.protocol.ski.SkiHttpVersion;
import io.elastikey.protocol.ski.SkiMethod;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Each converter accepts the protocol's own names (and lower case for methods), and says what it expected. The
 * handshake load generator shares {@link DurationConverter}.
 */
public final class OptionConverters {
    private OptionConverters() {
    }

    static final class MethodConverter implements ITypeConverter<SkiMethod> {
        @Override
        public SkiMethod convert(String value) {
            SkiMethod method = SkiMethod.fromWire(value.toUpperCase(Locale.ROOT));
            if (method == null) {
                throw new TypeConversionException("'" + value + "' is not RSA, RSA-RAW, ECDHE, SIGN, RSA-PKCS1-DIGEST, "
                        + "RSA-PSS-DIGEST or ECDSA-DIGEST");
            }
            return method;
        }
    }

    static final class ProtocolConverter implements ITypeConverter<SkiLoadGenerator.Protocol> {
        @Override
        public SkiLoadGenerator.Protocol convert(String value) {
            return switch (value.toLowerCase(Locale.ROOT)) {
                case "ski" -> SkiLoadGenerator.Protocol.SKI;
                case "keyless" -> SkiLoadGenerator.Protocol.KEYLESS;
                default -> throw new TypeConversionException("'" + value + "' is not ski or keyless");
            };
        }
    }

    static final class HashConverter implements ITypeConverter<SkiHash> {
        @Override
        public SkiHash convert(String value) {
            SkiHash hash = SkiHash.fromWire(value.toUpperCase(Locale.ROOT));
            if (hash == null) {
                throw new TypeConversionException("'" + value + "' is not SHA1, SHA-224, SHA-256, SHA-384, SHA-512 "
                        + "or MD5-SHA1");
            }
            return hash;
        }
    }

    static final class HttpVersionConverter implements ITypeConverter<SkiHttpVersion> {
        @Override
        public SkiHttpVersion convert(String value) {
            try {
                return SkiHttpVersion.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("'" + value + "' is not 1.1 or 2");
            }
        }
    }

    static final class KeyOrderConverter implements ITypeConverter<KeyOrder> {
        @Override
        public KeyOrder convert(String value) {
            return switch (value.toLowerCase(Locale.ROOT)) {
                case "round-robin" -> KeyOrder.ROUND_ROBIN;
                case "random", "uniform" -> KeyOrder.RANDOM;
                case "zipf" -> KeyOrder.ZIPF;
                default -> throw new TypeConversionException("'" + value + "' is not round-robin, random or zipf");
            };
        }
    }

    static final class KeyNameConverter implements ITypeConverter<KeyName> {
        @Override
        public KeyName convert(String value) {
            return switch (value.toLowerCase(Locale.ROOT)) {
                case "certificate-sha1" -> KeyName.CERTIFICATE_SHA1;
                case "keyless-ski", "ski" -> KeyName.KEYLESS_SKI;
                default -> throw new TypeConversionException("'" + value + "' is not certificate-sha1 or keyless-ski");
            };
        }
    }

    /** Seconds as a plain number, or a number with ms, s, m or h. */
    public static final class DurationConverter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            String text = value.strip().toLowerCase(Locale.ROOT);
            try {
                if (text.endsWith("ms")) {
                    return Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)));
                }
                char unit = text.charAt(text.length() - 1);
                if (Character.isDigit(unit)) {
                    return Duration.ofSeconds(Long.parseLong(text));
                }
                long amount = Long.parseLong(text.substring(0, text.length() - 1));
                return switch (unit) {
                    case 's' -> Duration.ofSeconds(amount);
                    case 'm' -> Duration.ofMinutes(amount);
                    case 'h' -> Duration.ofHours(amount);
                    default -> throw new TypeConversionException("'" + value
                            + "' has an unknown unit; use ms, s, m or h");
                };
            } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
                throw new TypeConversionException("'" + value + "' is not a duration such as 30, 30s, 500ms or 2m");
            }
        }
    }
}

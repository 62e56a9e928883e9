package io.elastikey.keyserver.crypto;

import java.util.Locale;

/**
 * Which JCA provider the key server should do its private-key work with. {@link #AUTO} is the
 * default everywhere: Amazon Corretto Crypto Provider where its native library loads, the JDK's
 * providers otherwise. The other two exist so an operator can rule ACCP out (or insist on it and
 * refuse to start without it), and so tests can run every operation under both.
 */
public enum ProviderChoice {
    /** ACCP when it loads and passes its self-tests, the JDK's providers otherwise. */
    AUTO,
    /** ACCP or nothing: selection fails when it cannot be loaded. */
    ACCP,
    /** The JDK's built-in providers only, even when ACCP is on the class path or installed. */
    JDK;

    /** The system property that overrides the configured choice: {@code auto}, {@code accp} or {@code jdk}. */
    public static final String SYSTEM_PROPERTY = "elastikey.crypto.provider";

    /**
     * Parses {@code auto}, {@code accp} or {@code jdk}, ignoring case and surrounding blanks.
     *
     * @throws IllegalArgumentException naming the valid choices
     */
    public static ProviderChoice parse(String text) {
        String wanted = text == null ? "" : text.strip().toUpperCase(Locale.ROOT);
        for (ProviderChoice choice : values()) {
            if (choice.name().equals(wanted)) {
                return choice;
            }
        }
        throw new IllegalArgumentException("unknown crypto provider '" + text + "'; valid choices are auto, accp, jdk");
    }

    /** The choice named by {@value #SYSTEM_PROPERTY}, or {@code fallback} when the property is unset. */
    public static ProviderChoice fromSystemProperty(ProviderChoice fallback) {
        String value = System.getProperty(SYSTEM_PROPERTY);
        return value == null || value.isBlank() ? fallback : parse(value);
    }

    /** The name used in configuration and on the command line. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }
}

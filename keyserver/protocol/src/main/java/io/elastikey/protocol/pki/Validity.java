// Validity -- the notBefore/notAfter window of a certificate to be issued.
package io.elastikey.protocol.pki;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

/**
 * When a certificate is valid. X.509 keeps whole seconds, so both ends are truncated to the second here, and the
 * issued certificate says exactly what this record says.
 *
 * <p>Any window is allowed as long as it is not empty, including one wholly in the past: tests need expired
 * certificates to prove that peers refuse them.
 *
 * @param notBefore the first instant the certificate is valid
 * @param notAfter the last instant the certificate is valid, after {@code notBefore}
 */
public record Validity(Instant notBefore, Instant notAfter) {
    /**
     * How far {@link #days} backdates {@code notBefore}, so a peer whose clock runs a little behind ours still
     * accepts a certificate issued a moment ago.
     */
    public static final Duration CLOCK_SKEW = Duration.ofMinutes(5);

    /**
     * Checks and truncates the window.
     *
     * @throws IllegalArgumentException when {@code notAfter} is not after {@code notBefore}
     */
    public Validity {
        notBefore = Objects.requireNonNull(notBefore, "notBefore").truncatedTo(ChronoUnit.SECONDS);
        notAfter = Objects.requireNonNull(notAfter, "notAfter").truncatedTo(ChronoUnit.SECONDS);
        if (!notAfter.isAfter(notBefore)) {
            throw new IllegalArgumentException("notAfter " + notAfter + " is not after notBefore " + notBefore);
        }
    }

    /** Valid from now (less {@link #CLOCK_SKEW}) for {@code days} days. */
    public static Validity days(long days) {
        if (days <= 0) {
            throw new IllegalArgumentException("validity must be at least one day, not " + days);
        }
        Instant now = Instant.now();
        return new Validity(now.minus(CLOCK_SKEW), now.plus(Duration.ofDays(days)));
    }
}

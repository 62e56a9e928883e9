// Names -- one normal form for every name a certificate or a policy file can hold, so comparing is equals().
package io.elastikey.keyserver.authz;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Normalizes names the same way on both sides of a comparison: once when the policy is parsed, once when a client
 * connects. After that, every authorization check is a hash lookup of strings that are already equal or not.
 *
 * <p>The normal forms: DNS names in lower case without a trailing dot (RFC 4343: DNS names compare without regard
 * to case); IP addresses as {@link InetAddress#getHostAddress()} prints them, so {@code ::1} and
 * {@code 0:0:0:0:0:0:0:1} are one address; e-mail addresses with the domain in lower case (RFC 5280 section 7.5:
 * the local part is case-sensitive); SHA-256 fingerprints and key IDs as 64 lower-case hex digits.
 *
 * <p>Methods that validate return {@code null} for input that is not a name of the kind, never throw, and never
 * touch the network: an IP address is only given to {@link InetAddress} once it is known to be a literal, so no
 * DNS lookup can happen.
 */
final class Names {
    private static final String LABEL = "[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?";
    private static final Pattern DNS_NAME = Pattern.compile(LABEL + "(\\." + LABEL + ")*");
    private static final String OCTET = "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])";
    private static final Pattern IPV4 = Pattern.compile(OCTET + "(\\." + OCTET + "){3}");
    /** Starts with a hex digit or a colon and holds a colon: InetAddress then parses it as a literal or fails. */
    private static final Pattern IPV6 = Pattern.compile("[0-9a-fA-F:][0-9a-fA-F:.]*:[0-9a-fA-F:.]*");
    private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");

    private Names() {
    }

    /** A DNS name in normal form (no wildcard), or {@code null} when it is not a valid host name. */
    static String dnsName(String name) {
        String lower = withoutTrailingDot(name.toLowerCase(Locale.ROOT));
        return lower.length() <= 253 && DNS_NAME.matcher(lower).matches() ? lower : null;
    }

    /**
     * A DNS name or a wildcard pattern ({@code *.example.com}) in normal form, or {@code null}. A wildcard needs
     * at least two labels after the star: {@code *.com} would grant a whole top-level domain.
     */
    static String dnsPattern(String pattern) {
        if (!pattern.startsWith("*.")) {
            return dnsName(pattern);
        }
        String parent = dnsName(pattern.substring(2));
        return parent != null && parent.indexOf('.') > 0 ? "*." + parent : null;
    }

    /**
     * The domain a one-label wildcard must name to cover {@code name}: {@code example.com} for
     * {@code www.example.com}, and also for {@code *.example.com} itself. {@code null} when {@code name} has a
     * single label, so no wildcard ever matches a bare domain or a top-level name.
     */
    static String wildcardParent(String name) {
        int dot = name.indexOf('.');
        return dot > 0 && dot < name.length() - 1 ? name.substring(dot + 1) : null;
    }

    /** An IPv4 or IPv6 literal in normal form, or {@code null}. */
    static String ipAddress(String literal) {
        if (!IPV4.matcher(literal).matches() && !IPV6.matcher(literal).matches()) {
            return null;
        }
        try {
            return InetAddress.getByName(literal).getHostAddress();
        } catch (UnknownHostException e) {
            return null;
        }
    }

    /** An e-mail address with its domain in lower case, or {@code null} when it has no single {@code @}. */
    static String email(String address) {
        int at = address.indexOf('@');
        if (at <= 0 || at != address.lastIndexOf('@') || at == address.length() - 1) {
            return null;
        }
        return address.substring(0, at + 1) + address.substring(at + 1).toLowerCase(Locale.ROOT);
    }

    /**
     * A SHA-256 digest as 64 lower-case hex digits, or {@code null}. Accepts the colon-separated upper-case form
     * {@code openssl x509 -fingerprint -sha256} prints.
     */
    static String sha256Hex(String hex) {
        String plain = hex.replace(":", "").toLowerCase(Locale.ROOT);
        return SHA256_HEX.matcher(plain).matches() ? plain : null;
    }

    /** Lower-case hex of {@code bytes}. */
    static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    private static String withoutTrailingDot(String name) {
        return name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
    }
}

// ClientSelector -- one "client <kind> <value>" line of a policy: a name a client certificate may carry.
package io.elastikey.keyserver.authz;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A name that picks clients, in normal form, so it can be a hash key. {@link AccessPolicy} indexes its rules by
 * selector; a connecting client is matched by turning its identity into every selector that would match it
 * ({@link #candidatesFor}) and looking each one up. That costs a few lookups per connection however many rules
 * the policy holds.
 *
 * <p>Wildcards exist for DNS names only, and are stored as written ({@code *.edge.example.net}): a client whose
 * certificate names {@code eu1.edge.example.net} produces the candidate {@code *.edge.example.net}, which is the
 * TLS rule: the star stands for exactly one whole label.
 */
record ClientSelector(Kind kind, String value) {

    /** The kinds of name, with the keyword a policy file uses for each. */
    enum Kind {
        FINGERPRINT("fingerprint", "a SHA-256 certificate fingerprint: 64 hex digits, colons allowed"),
        CN("cn", "a subject common name"),
        DNS("dns", "a DNS name, or *. and a domain of at least two labels"),
        IP("ip", "an IPv4 or IPv6 address"),
        URI("uri", "a URI, e.g. spiffe://example.org/edge/eu-1"),
        EMAIL("email", "an e-mail address");

        private final String keyword;
        private final String expected;

        Kind(String keyword, String expected) {
            this.keyword = keyword;
            this.expected = expected;
        }

        String keyword() {
            return keyword;
        }

        /** What a valid value looks like, for error messages. */
        String expected() {
            return expected;
        }

        /** The kind named {@code keyword} (case-insensitive), or {@code null}. */
        static Kind fromKeyword(String keyword) {
            for (Kind kind : values()) {
                if (kind.keyword.equals(keyword.toLowerCase(Locale.ROOT))) {
                    return kind;
                }
            }
            return null;
        }

        /** {@code raw} in the normal form of this kind, or {@code null} when it is not a valid value. */
        String normalize(String raw) {
            return switch (this) {
                case FINGERPRINT -> Names.sha256Hex(raw);
                case CN, URI -> raw.isEmpty() ? null : raw;
                case DNS -> Names.dnsPattern(raw);
                case IP -> Names.ipAddress(raw);
                case EMAIL -> Names.email(raw);
            };
        }
    }

    /** Every selector that matches {@code client}: one per name it carries, plus one wildcard per DNS name. */
    static List<ClientSelector> candidatesFor(ClientIdentity client) {
        List<ClientSelector> candidates = new ArrayList<>();
        candidates.add(new ClientSelector(Kind.FINGERPRINT, client.fingerprint()));
        client.commonName().ifPresent(cn -> candidates.add(new ClientSelector(Kind.CN, cn)));
        for (String dns : client.dnsNames()) {
            candidates.add(new ClientSelector(Kind.DNS, dns));
            String parent = Names.wildcardParent(dns);
            if (parent != null) {
                candidates.add(new ClientSelector(Kind.DNS, "*." + parent));
            }
        }
        client.ipAddresses().forEach(ip -> candidates.add(new ClientSelector(Kind.IP, ip)));
        client.uris().forEach(uri -> candidates.add(new ClientSelector(Kind.URI, uri)));
        client.emails().forEach(email -> candidates.add(new ClientSelector(Kind.EMAIL, email)));
        return candidates;
    }

    @Override
    public String toString() {
        return kind.keyword + " " + value;
    }
}

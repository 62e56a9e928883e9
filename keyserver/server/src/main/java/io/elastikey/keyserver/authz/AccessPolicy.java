// AccessPolicy -- which client may use which key: the rules of a policy file, indexed by client name.
package io.elastikey.keyserver.authz;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The key server's authorization policy: a list of rules, each picking clients by a name in their certificate
 * and granting them keys. Default deny: a client that matches no rule may use no key, and is answered
 * {@code request denied} (403).
 *
 * <h2>The policy file</h2>
 *
 * <p>UTF-8 text, one statement per line; blank lines and lines starting with {@code #} are ignored (a {@code #}
 * later in a line is not a comment). A rule starts with {@code rule NAME} and holds any number of {@code client}
 * and {@code allow} lines, each at least one:
 * <pre>
 * # Edge servers in Europe serve the shop's sites.
 * rule edge-eu
 *   client dns *.edge-eu.example.net
 *   client cn  edge-eu-legacy
 *   allow domain *.shop.example
 *   allow domain shop.example
 *   allow tag    eu-shared
 *
 * rule admin
 *   client fingerprint 3A:7B:...:9F
 *   allow all
 * </pre>
 *
 * <p>Client selectors (a client matches the rule when <em>any</em> selector matches; DNS names, e-mail domains
 * and fingerprints compare without regard to case, the others exactly):
 * <ul>
 *   <li>{@code client fingerprint HEX}: SHA-256 of the client certificate, 64 hex digits, colons allowed (as
 *       {@code openssl x509 -noout -fingerprint -sha256} prints it). The only selector a certificate from another
 *       CA cannot also claim.
 *   <li>{@code client cn NAME}: the subject's common name; the rest of the line, spaces included.
 *   <li>{@code client dns NAME} or {@code client dns *.DOMAIN}: a DNS subject alternative name; the wildcard
 *       stands for exactly one label, as in TLS ({@code *.example.net} matches {@code a.example.net}, neither
 *       {@code example.net} nor {@code a.b.example.net}).
 *   <li>{@code client ip ADDRESS}, {@code client uri URI} (e.g. a SPIFFE ID), {@code client email ADDRESS}:
 *       the other subject alternative names.
 * </ul>
 *
 * <p>Grants (a client gets the union of the grants of every rule it matches; see {@link Grants#permits}):
 * <ul>
 *   <li>{@code allow key KEYID}: one key, by its ID (hex SHA-256 of its SubjectPublicKeyInfo).
 *   <li>{@code allow tag TAG}: every key carrying the tag.
 *   <li>{@code allow domain NAME} or {@code allow domain *.DOMAIN}: every key whose certificate's DNS names are
 *       <em>all</em> covered by the client's domain grants, with the same one-label wildcard rule.
 *   <li>{@code allow all}: every key; for administrative clients.
 * </ul>
 *
 * <h2>Use</h2>
 *
 * <p>{@link #load} once at start (a {@link PolicyFormatException} lists every error with its line: refuse to
 * start); {@link #grantsFor} once per connection; {@link Grants#permits} on every request. Policies are
 * immutable: to reload, load the file again and swap the reference; connections keep the grants they resolved.
 */
public final class AccessPolicy {
    private final String source;
    private final List<Rule> rules;
    private final Map<ClientSelector, List<Rule>> rulesBySelector;

    private AccessPolicy(String source, List<Rule> rules) {
        this.source = source;
        this.rules = rules;
        Map<ClientSelector, List<Rule>> index = new HashMap<>();
        for (Rule rule : rules) {
            for (ClientSelector selector : rule.selectors()) {
                List<Rule> matching = index.computeIfAbsent(selector, s -> new ArrayList<>());
                if (!matching.contains(rule)) {
                    matching.add(rule);
                }
            }
        }
        index.replaceAll((selector, matching) -> List.copyOf(matching));
        this.rulesBySelector = Map.copyOf(index);
    }

    /**
     * Reads and parses the policy file at {@code file}.
     *
     * @throws PolicyFormatException listing every error in the file, each with its line number
     * @throws IOException when the file cannot be read or is not UTF-8
     */
    public static AccessPolicy load(Path file) throws IOException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (CharacterCodingException e) {
            throw new IOException(file + ": a policy file must be UTF-8 text", e);
        }
        return parse(file.toString(), text);
    }

    /**
     * Parses a policy from text.
     *
     * @param source where the text came from, for error messages
     * @throws PolicyFormatException listing every error in the text, each with its line number
     */
    public static AccessPolicy parse(String source, String text) throws PolicyFormatException {
        return new AccessPolicy(source, PolicyParser.parse(source, text));
    }

    /** A policy without rules: every client is denied every key. */
    public static AccessPolicy denyAll() {
        return new AccessPolicy("(no policy)", List.of());
    }

    /**
     * What {@code client} may use: the union of the grants of every rule it matches, or {@link Grants#none()}.
     * Costs one hash lookup per name in the client's certificate, however many rules there are; call it once per
     * connection.
     */
    public Grants grantsFor(ClientIdentity client) {
        Set<Rule> matched = new LinkedHashSet<>();
        for (ClientSelector candidate : ClientSelector.candidatesFor(client)) {
            matched.addAll(rulesBySelector.getOrDefault(candidate, List.of()));
        }
        if (matched.isEmpty()) {
            return Grants.none();
        }
        if (matched.size() == 1) {
            return matched.iterator().next().grants();
        }
        Grants.Builder union = new Grants.Builder();
        matched.stream().sorted(Comparator.comparingInt(Rule::line)).forEach(rule -> union.add(rule.grants()));
        return union.build();
    }

    /** The number of rules, e.g. for the start-up log line. */
    public int ruleCount() {
        return rules.size();
    }

    /** Where the policy was loaded from. */
    public String source() {
        return source;
    }

    @Override
    public String toString() {
        return "AccessPolicy[" + source + ", " + rules.size() + " rules]";
    }
}

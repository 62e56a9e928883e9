// PolicyParser -- turns the text of a policy file into rules, or into every error it holds with its line number.
package io.elastikey.keyserver.authz;

import io.elastikey.keyserver.authz.PolicyFormatException.Problem;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * A line-at-a-time parser for the format {@link AccessPolicy} documents. Each line is a comment, blank, or one of
 * three statements ({@code rule}, {@code client}, {@code allow}); there is no nesting and no continuation, so an
 * error always belongs to exactly one line. Parsing does not stop at the first error: every problem is collected
 * and reported together. Not thread-safe; one instance parses one text.
 */
final class PolicyParser {
    private static final Pattern WHITESPACE = Pattern.compile("\\s+");
    private static final Pattern RULE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.:-]*");
    private static final Pattern KEY_ID = Pattern.compile("[0-9a-f]{64}");

    private final List<Rule> rules = new ArrayList<>();
    private final Set<String> ruleNames = new HashSet<>();
    private final List<Problem> problems = new ArrayList<>();
    private RuleBuilder current;
    private int lineNumber;

    /** The rules of {@code text}, in file order. */
    static List<Rule> parse(String source, String text) throws PolicyFormatException {
        PolicyParser parser = new PolicyParser();
        // Editors on Windows may start UTF-8 files with a byte order mark.
        String withoutBom = text.startsWith("\uFEFF") ? text.substring(1) : text;
        withoutBom.lines().forEach(parser::line);
        parser.finishRule();
        if (!parser.problems.isEmpty()) {
            // A rule's own problems are found when it ends, after its lines' problems.
            parser.problems.sort(Comparator.comparingInt(Problem::line));
            throw new PolicyFormatException(source, parser.problems);
        }
        return List.copyOf(parser.rules);
    }

    private void line(String raw) {
        lineNumber++;
        String line = raw.strip();
        if (line.isEmpty() || line.startsWith("#")) {
            return;
        }
        String[] words = WHITESPACE.split(line, 3);
        String argument = words.length > 1 ? words[1] : "";
        String rest = words.length > 2 ? words[2] : "";
        switch (words[0].toLowerCase(Locale.ROOT)) {
            case "rule" -> startRule(argument, rest);
            case "client" -> inRule("client").client(argument, rest);
            case "allow" -> inRule("allow").allow(argument, rest);
            default -> unknownStatement(words[0]);
        }
    }

    private void startRule(String name, String rest) {
        finishRule();
        current = new RuleBuilder(name, lineNumber);
        if (!RULE_NAME.matcher(name).matches() || !rest.isEmpty()) {
            problem("a rule needs one name of letters, digits, '_', '.', ':' or '-' (e.g. 'rule edge-eu'), not '"
                    + (name + " " + rest).strip() + "'");
            current.valid = false;
        } else if (!ruleNames.add(name)) {
            problem("rule '" + name + "' is defined twice; rule names must be unique");
        }
    }

    private void unknownStatement(String word) {
        problem("unknown statement '" + word + "' (expected rule, client or allow; comments start with #)");
        if (current != null) {
            // Probably a misspelt client or allow line: "rule has no client line" would only repeat the error.
            current.valid = false;
        }
    }

    /** The rule being built; a placeholder (whose lines are still checked) when there is none yet. */
    private RuleBuilder inRule(String statement) {
        if (current == null) {
            problem("'" + statement + "' before any rule; start a rule with 'rule NAME'");
            current = new RuleBuilder("", lineNumber);
            current.valid = false;
        }
        return current;
    }

    private void finishRule() {
        if (current == null) {
            return;
        }
        if (current.valid && current.selectors.isEmpty()) {
            problem(current.line, "rule '" + current.name + "' has no client line, so no client can match it");
        } else if (current.valid && !current.hasGrant) {
            problem(current.line, "rule '" + current.name + "' has no allow line, so it grants nothing");
        } else if (current.valid) {
            rules.add(new Rule(current.name, current.line, current.selectors, current.grants.build()));
        }
        current = null;
    }

    private void problem(String message) {
        problem(lineNumber, message);
    }

    private void problem(int line, String message) {
        problems.add(new Problem(line, message));
    }

    /** The statements of one rule as they arrive; {@code valid} turns false on any error in the rule. */
    private final class RuleBuilder {
        final String name;
        final int line;
        final List<ClientSelector> selectors = new ArrayList<>();
        final Grants.Builder grants;
        boolean hasGrant;
        boolean valid = true;

        RuleBuilder(String name, int line) {
            this.name = name;
            this.line = line;
            this.grants = new Grants.Builder().ruleName(name);
        }

        void client(String keyword, String rest) {
            ClientSelector.Kind kind = ClientSelector.Kind.fromKeyword(keyword);
            if (keyword.isEmpty()) {
                fail("'client' needs a selector and a value, e.g. 'client cn edge-eu-1'");
                return;
            }
            if (kind == null) {
                fail("unknown client selector '" + keyword + "' (expected fingerprint, cn, dns, ip, uri or email)");
                return;
            }
            // A common name may hold spaces; every other value is one word.
            String statement = "client " + kind.keyword();
            String raw = kind == ClientSelector.Kind.CN && !rest.isEmpty() ? rest : oneValue(statement, rest);
            String value = raw == null ? null : kind.normalize(raw);
            if (raw != null && value == null) {
                fail("'" + statement + "' needs " + kind.expected() + ", not '" + raw + "'");
            } else if (value != null) {
                selectors.add(new ClientSelector(kind, value));
            }
        }

        void allow(String keyword, String rest) {
            switch (keyword.toLowerCase(Locale.ROOT)) {
                case "all" -> {
                    if (rest.isEmpty()) {
                        grants.allKeys();
                        hasGrant = true;
                    } else {
                        fail("'allow all' takes no value, found '" + rest + "'");
                    }
                }
                case "tickets" -> {
                    if (rest.isEmpty()) {
                        grants.ticketKeys();
                        hasGrant = true;
                    } else {
                        fail("'allow tickets' takes no value, found '" + rest + "'");
                    }
                }
                case "key" -> grant("allow key", rest, value -> {
                    String keyId = value.toLowerCase(Locale.ROOT);
                    return KEY_ID.matcher(keyId).matches() ? keyId : null;
                }, "a key ID: 64 hex digits, the SHA-256 of the key's SubjectPublicKeyInfo", grants::keyId);
                case "tag" -> grant("allow tag", rest, value -> value, "a tag", grants::tag);
                case "domain" -> grant("allow domain", rest, Names::dnsPattern,
                        "a DNS name, or *. and a domain of at least two labels", grants::domain);
                case "" -> fail("'allow' needs what it grants, e.g. 'allow tag production' or 'allow all'");
                default -> fail("unknown grant 'allow " + keyword + "' (expected key, tag, domain, all or tickets)");
            }
        }

        private void grant(String statement, String rest, UnaryOperator<String> normalize, String expected,
                Consumer<String> add) {
            String raw = oneValue(statement, rest);
            if (raw == null) {
                return;
            }
            String value = normalize.apply(raw);
            if (value == null) {
                fail("'" + statement + "' needs " + expected + ", not '" + raw + "'");
            } else {
                add.accept(value);
                hasGrant = true;
            }
        }

        /** {@code rest} when it is one word; otherwise reports why and returns {@code null}. */
        private String oneValue(String statement, String rest) {
            if (rest.isEmpty()) {
                fail("'" + statement + "' needs a value");
                return null;
            }
            if (WHITESPACE.matcher(rest).find()) {
                fail("'" + statement + "' takes one value, found '" + rest + "' (comments go on lines of "
                        + "their own)");
                return null;
            }
            return rest;
        }

        private void fail(String message) {
            problem(message);
            valid = false;
        }
    }
}

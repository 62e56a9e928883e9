// Grants -- the keys one client may use, resolved once per connection and asked on every request.
package io.elastikey.keyserver.authz;

import io.elastikey.keyserver.keys.LoadedKey;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What the rules a client matched allow it, merged into four hash sets so that {@link #permits} is a handful of
 * lookups: the key's ID, each of its tags, each of its certificate's DNS names and that name's parent domain.
 *
 * <p>A key is permitted when any of these holds: the client holds {@code allow all}; the key's ID is granted; one
 * of the key's tags is granted; or <em>every</em> DNS name of the key's certificate is covered by a granted domain
 * (exactly, or by a {@code *.} pattern one label up). Every name, not any: a key whose certificate also covers
 * {@code bank.example} can impersonate {@code bank.example}, so a grant for {@code *.shop.example} alone must not
 * hand it out. A key without names is never permitted by domain. Key IDs and tags are compared exactly.
 *
 * <p>Instances are immutable and thread-safe; the server keeps one per connection.
 */
public final class Grants {
    private static final Grants NONE = new Grants(List.of(), false, false, Set.of(), Set.of(), Set.of(), Set.of());

    private final List<String> ruleNames;
    private final boolean allKeys;
    private final boolean ticketKeys;
    private final Set<String> keyIds;
    private final Set<String> tags;
    private final Set<String> domains;
    private final Set<String> wildcardParents;

    private Grants(List<String> ruleNames, boolean allKeys, boolean ticketKeys, Set<String> keyIds, Set<String> tags,
            Set<String> domains, Set<String> wildcardParents) {
        this.ruleNames = List.copyOf(ruleNames);
        this.allKeys = allKeys;
        this.ticketKeys = ticketKeys;
        this.keyIds = Set.copyOf(keyIds);
        this.tags = Set.copyOf(tags);
        this.domains = Set.copyOf(domains);
        this.wildcardParents = Set.copyOf(wildcardParents);
    }

    /** The grants of a client that matched no rule: nothing. */
    public static Grants none() {
        return NONE;
    }

    /** Whether the client may use {@code key}: a few hash lookups, independent of the size of the policy. */
    public boolean permits(LoadedKey key) {
        return permits(key.keyId(), key.tags(), key.names());
    }

    /** {@link #permits(LoadedKey)} for a key known by its ID, tags and certificate names. */
    public boolean permits(String keyId, Set<String> keyTags, List<String> names) {
        if (allKeys || keyIds.contains(keyId)) {
            return true;
        }
        if (!tags.isEmpty()) {
            for (String tag : keyTags) {
                if (tags.contains(tag)) {
                    return true;
                }
            }
        }
        return coversEveryName(names);
    }

    /**
     * Whether the client may fetch the deployment's session-ticket keys ({@code allow tickets}): what edges need and
     * nothing else should have, since those keys decrypt every ticket of every edge. {@code allow all} does not
     * include it.
     */
    public boolean permitsTicketKeys() {
        return ticketKeys;
    }

    /** Whether the client matched no rule, so every request will be denied. */
    public boolean isEmpty() {
        return ruleNames.isEmpty();
    }

    /** The names of the rules the client matched, in file order: what to log when a client connects. */
    public List<String> ruleNames() {
        return ruleNames;
    }

    @Override
    public String toString() {
        return "Grants" + ruleNames;
    }

    private boolean coversEveryName(List<String> names) {
        if (names.isEmpty() || (domains.isEmpty() && wildcardParents.isEmpty())) {
            return false;
        }
        for (String name : names) {
            if (!domains.contains(name)) {
                String parent = Names.wildcardParent(name);
                if (parent == null || !wildcardParents.contains(parent)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Collects the grants of one rule, or merges several rules' grants. Not thread-safe. */
    static final class Builder {
        private final List<String> ruleNames = new ArrayList<>();
        private boolean allKeys;
        private boolean ticketKeys;
        private final Set<String> keyIds = new HashSet<>();
        private final Set<String> tags = new HashSet<>();
        private final Set<String> domains = new HashSet<>();
        private final Set<String> wildcardParents = new HashSet<>();

        Builder ruleName(String name) {
            ruleNames.add(name);
            return this;
        }

        Builder allKeys() {
            allKeys = true;
            return this;
        }

        Builder ticketKeys() {
            ticketKeys = true;
            return this;
        }

        Builder keyId(String keyId) {
            keyIds.add(keyId);
            return this;
        }

        Builder tag(String tag) {
            tags.add(tag);
            return this;
        }

        /** A DNS name or a {@code *.} pattern, already in normal form. */
        Builder domain(String pattern) {
            if (pattern.startsWith("*.")) {
                wildcardParents.add(pattern.substring(2));
            } else {
                domains.add(pattern);
            }
            return this;
        }

        Builder add(Grants other) {
            ruleNames.addAll(other.ruleNames);
            allKeys |= other.allKeys;
            ticketKeys |= other.ticketKeys;
            keyIds.addAll(other.keyIds);
            tags.addAll(other.tags);
            domains.addAll(other.domains);
            wildcardParents.addAll(other.wildcardParents);
            return this;
        }

        Grants build() {
            return new Grants(ruleNames, allKeys, ticketKeys, keyIds, tags, domains, wildcardParents);
        }
    }
}

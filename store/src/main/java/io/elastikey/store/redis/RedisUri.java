// RedisUri -- the location of a Redis deployment as one string: standalone, Sentinel or Cluster, with TLS and options.
package io.elastikey.store.redis;

import io.lettuce.core.RedisURI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A parsed Redis location. The forms (options after {@code ?}, see docs/redis.md):
 *
 * <pre>
 * redis://[[user:]password@]host[:port][/db]                      standalone
 * rediss://...                                                    standalone over TLS
 * redis-sentinel://[[user:]password@]host[:port][,host[:port]...][/db]#masterId   Sentinel (rediss-sentinel: TLS)
 * redis-cluster://[[user:]password@]host[:port][,host[:port]...]  Cluster seeds (rediss-cluster: TLS)
 * redis://host:port,host:port?cluster=true                        the same Cluster, spelled as a flag
 * </pre>
 *
 * <p>The first three are Lettuce's own syntax and go to {@link RedisURI#create(String)} unchanged but for the
 * options Elastikey reads itself. The cluster forms are ours: each seed becomes a {@code redis://} (or
 * {@code rediss://}) URI with the shared credentials. Passwords and user names may be percent-encoded; a password
 * holding {@code @ / ? #} must be. {@link #toString()} is the text with the password replaced by {@code ***}, and
 * is the only form that ever reaches a log line or an exception.
 */
public final class RedisUri {

    /** How the deployment is reached. */
    public enum Mode { STANDALONE, SENTINEL, CLUSTER }

    /** Option names Lettuce reads from the query itself; passed through. */
    private static final Set<String> LETTUCE_OPTIONS = Set.of("database", "db", "clientName", "verifyPeer");

    private final Mode mode;
    private final boolean tls;
    private final String redacted;
    private final List<String> nodes;
    private final Map<String, String> options;

    private RedisUri(Mode mode, boolean tls, String redacted, List<String> nodes, Map<String, String> options) {
        this.mode = mode;
        this.tls = tls;
        this.redacted = redacted;
        this.nodes = nodes;
        this.options = options;
    }

    /** Whether {@code location} has a scheme this class parses (so it is a Redis location, not a path). */
    public static boolean isRedis(String location) {
        String lower = location.strip().toLowerCase(Locale.ROOT);
        for (String scheme : List.of("redis://", "rediss://", "redis-sentinel://", "rediss-sentinel://",
                "redis-cluster://", "rediss-cluster://")) {
            if (lower.startsWith(scheme)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Parses {@code text}.
     *
     * @throws IllegalArgumentException naming the redacted location and what is wrong with it
     */
    public static RedisUri parse(String text) {
        String location = text.strip();
        String redacted = redact(location);
        if (!isRedis(location)) {
            throw new IllegalArgumentException(redacted + ": not a Redis URI (redis://, rediss://, "
                    + "redis-sentinel://, rediss-sentinel://, redis-cluster:// or rediss-cluster://)");
        }
        try {
            return parse(location, redacted);
        } catch (IllegalArgumentException e) {
            // Lettuce's messages may quote the input: never let them carry the password.
            throw new IllegalArgumentException(redacted + ": " + scrub(e.getMessage(), location, redacted), e.getCause());
        }
    }

    private static RedisUri parse(String location, String redacted) {
        int schemeEnd = location.indexOf("://");
        String scheme = location.substring(0, schemeEnd).toLowerCase(Locale.ROOT);
        String rest = location.substring(schemeEnd + 3);
        String fragment = "";
        int hash = rest.lastIndexOf('#');
        if (hash >= 0) {
            fragment = rest.substring(hash);
            rest = rest.substring(0, hash);
        }
        Map<String, String> ours = new LinkedHashMap<>();
        List<String> passed = new ArrayList<>();
        int question = rest.indexOf('?', Math.max(0, rest.lastIndexOf('@')));
        if (question >= 0) {
            for (String pair : rest.substring(question + 1).split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String name = eq < 0 ? pair : pair.substring(0, eq);
                String value = eq < 0 ? "" : pair.substring(eq + 1);
                if (LETTUCE_OPTIONS.contains(name)) {
                    passed.add(pair);
                } else if (RedisStoreConfig.OPTIONS.contains(name)) {
                    ours.put(name, value);
                } else {
                    throw new IllegalArgumentException("unknown option '" + name + "'; known options: "
                            + String.join(", ", RedisStoreConfig.OPTIONS) + ", " + String.join(", ", LETTUCE_OPTIONS));
                }
            }
            rest = rest.substring(0, question);
        }
        boolean tls = scheme.startsWith("rediss");
        boolean cluster = scheme.endsWith("-cluster") || Boolean.parseBoolean(ours.getOrDefault("cluster", "false"));
        String query = passed.isEmpty() ? "" : "?" + String.join("&", passed);
        List<String> nodes = new ArrayList<>();
        Mode mode;
        if (cluster) {
            if (scheme.contains("sentinel")) {
                throw new IllegalArgumentException("a Sentinel URI cannot also be a Cluster");
            }
            mode = Mode.CLUSTER;
            int at = rest.lastIndexOf('@');
            String userInfo = at < 0 ? "" : rest.substring(0, at + 1);
            String hosts = at < 0 ? rest : rest.substring(at + 1);
            if (hosts.contains("/")) {
                throw new IllegalArgumentException("a Cluster has only database 0: remove the /db part");
            }
            for (String host : hosts.split(",")) {
                if (host.isBlank()) {
                    throw new IllegalArgumentException("empty host in the seed list");
                }
                nodes.add((tls ? "rediss://" : "redis://") + userInfo + host + query);
            }
        } else {
            mode = scheme.contains("sentinel") ? Mode.SENTINEL : Mode.STANDALONE;
            if (mode == Mode.SENTINEL && fragment.length() <= 1) {
                throw new IllegalArgumentException("a Sentinel URI names its master after '#', e.g. "
                        + "redis-sentinel://host:26379#mymaster");
            }
            if (mode == Mode.STANDALONE && rest.contains(",")) {
                throw new IllegalArgumentException("several hosts need redis-cluster://, ?cluster=true or "
                        + "redis-sentinel://");
            }
            nodes.add(scheme + "://" + rest + query + fragment);
        }
        nodes.forEach(RedisURI::create); // Lettuce's own checks, now rather than at connect
        return new RedisUri(mode, tls, redacted, List.copyOf(nodes), Collections.unmodifiableMap(ours));
    }

    /** {@code location} with the password part of its user info replaced by {@code ***}. */
    public static String redact(String location) {
        int schemeEnd = location.indexOf("://");
        if (schemeEnd < 0) {
            return location;
        }
        int start = schemeEnd + 3;
        int at = location.lastIndexOf('@');
        if (at < start) {
            return location;
        }
        String userInfo = location.substring(start, at);
        int colon = userInfo.indexOf(':');
        String shown = colon < 0 ? "***" : userInfo.substring(0, colon) + ":***";
        return location.substring(0, start) + shown + location.substring(at);
    }

    private static String scrub(String message, String location, String redacted) {
        if (message == null) {
            return "invalid URI";
        }
        String scrubbed = message.replace(location, redacted);
        int start = location.indexOf("://") + 3;
        int at = location.lastIndexOf('@');
        if (at > start) {
            String userInfo = location.substring(start, at);
            String secret = userInfo.substring(userInfo.indexOf(':') + 1);
            if (!secret.isEmpty()) {
                scrubbed = scrubbed.replace(secret, "***");
            }
        }
        return scrubbed;
    }

    public Mode mode() {
        return mode;
    }

    /** Whether connections use TLS ({@code rediss}). */
    public boolean tls() {
        return tls;
    }

    /** Lettuce URIs: the one server or Sentinel set, or every Cluster seed. Fresh objects the caller may change. */
    List<RedisURI> nodes() {
        List<RedisURI> fresh = new ArrayList<>();
        for (String node : nodes) {
            fresh.add(RedisURI.create(node));
        }
        return fresh;
    }

    /** The Elastikey options from the query ({@code prefix}, {@code timeout}, ...), by name. */
    Map<String, String> options() {
        return options;
    }

    /** The location with its password replaced by {@code ***}. */
    @Override
    public String toString() {
        return redacted;
    }
}

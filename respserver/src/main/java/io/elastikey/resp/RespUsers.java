// RespUsers -- the RESP server's users: names, password digests and roles; AUTH checks against them.
package io.elastikey.resp;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Who may connect, as Redis 6+ ACLs see it in the small: each user has a name, a password and a
 * {@link RespRole}. {@code requirepass} is the password of the user {@value #DEFAULT_USER} (what a
 * bare {@code AUTH password} names), with the {@code admin} role as in Redis, where the default
 * user may run everything.
 *
 * <p>Only the SHA-256 digest of each password is kept. {@link #authenticate} hashes what the client
 * sent and compares digests with {@link MessageDigest#isEqual} (constant time); an unknown name is
 * compared against a dummy digest, so a wrong name costs what a wrong password costs. Nothing here
 * ever prints a password: errors name the setting or the file line, {@link #toString} the names.
 *
 * <p>A users file holds one {@code name:password:role} per line (blank lines and lines starting
 * with {@code #} are skipped); the password may contain {@code :}. A password written
 * {@code #<64 hex digits>} is the SHA-256 digest of the password (Redis ACL's {@code #<hash>}), so
 * the file need not hold it in clear. Immutable and thread-safe.
 */
public final class RespUsers {
    /** The user {@code AUTH password} and {@code requirepass} name. */
    public static final String DEFAULT_USER = "default";

    private static final Logger LOG = LoggerFactory.getLogger(RespUsers.class);
    private static final byte[] DUMMY = sha256(new byte[0]);

    /** A user who authenticated. */
    record User(String name, RespRole role) {
    }

    private record Entry(User user, byte[] digest) {
    }

    private final Map<String, Entry> users;

    private RespUsers(Map<String, Entry> users) {
        this.users = Map.copyOf(users);
    }

    /** No users: the server asks for no AUTH (see {@code docs/resp.md} for what it then allows). */
    public static RespUsers none() {
        return new RespUsers(Map.of());
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Whether clients must AUTH before anything but AUTH, HELLO and QUIT. */
    public boolean required() {
        return !users.isEmpty();
    }

    /**
     * The user {@code name} if {@code password} is theirs, else null; the same work either way.
     * {@code password} is read, never kept.
     */
    User authenticate(String name, byte[] password) {
        byte[] sent = sha256(password);
        Entry e = users.get(name);
        boolean match = MessageDigest.isEqual(sent, e != null ? e.digest : DUMMY);
        return e != null && match ? e.user : null;
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("RespUsers{");
        users.values().forEach(e -> b.append(b.length() > 10 ? ", " : "").append(e.user.name()).append(" (")
                .append(e.user.role()).append(')'));
        return b.append('}').toString();
    }

    static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK lacks SHA-256", e);
        }
    }

    /** Collects users from settings; {@link #build} fails on a duplicate name. */
    public static final class Builder {
        private final Map<String, Entry> users = new LinkedHashMap<>();

        private Builder() {
        }

        /** {@code requirepass}: the password of {@value #DEFAULT_USER}, who is an admin. */
        public Builder requirePass(String password) {
            return user(DEFAULT_USER, password, RespRole.ADMIN, "requirepass");
        }

        public Builder user(String name, String password, RespRole role) {
            return user(name, password, role, "user " + name);
        }

        /** {@code name:password:role}, as {@code --user} takes it. */
        public Builder user(String spec) {
            return spec(spec, "--user " + masked(spec));
        }

        /** Every user of a users file (format in the class comment); warns if others may read it. */
        public Builder file(Path file) throws IOException {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i).strip();
                if (!line.isEmpty() && !line.startsWith("#")) {
                    spec(line, file + " line " + (i + 1));
                }
            }
            warnIfShared(file);
            return this;
        }

        private Builder spec(String spec, String where) {
            int first = spec.indexOf(':');
            int last = spec.lastIndexOf(':');
            if (first <= 0 || last == first) {
                throw new IllegalArgumentException(where + ": expected NAME:PASSWORD:ROLE");
            }
            RespRole role;
            try {
                role = RespRole.parse(spec.substring(last + 1));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + ": " + e.getMessage());
            }
            String name = spec.substring(0, first);
            String password = spec.substring(first + 1, last);
            return password.length() == 65 && password.startsWith("#") && isHex(password.substring(1))
                    ? add(name, HexFormat.of().parseHex(password.substring(1)), role, where)
                    : user(name, password, role, where);
        }

        private Builder user(String name, String password, RespRole role, String where) {
            if (password == null || password.isEmpty()) {
                throw new IllegalArgumentException(where + ": the password is empty");
            }
            return add(name, sha256(password.getBytes(StandardCharsets.UTF_8)), role, where);
        }

        private Builder add(String name, byte[] digest, RespRole role, String where) {
            if (name.isEmpty() || !name.chars().allMatch(c -> c > 0x20 && c < 0x7f && c != ':')) {
                throw new IllegalArgumentException(where + ": a user name is printable ASCII without spaces or ':'");
            }
            if (users.putIfAbsent(name, new Entry(new User(name, role), digest)) != null) {
                throw new IllegalArgumentException(where + ": user '" + name + "' is defined twice");
            }
            return this;
        }

        public RespUsers build() {
            return new RespUsers(users);
        }

        private static boolean isHex(String s) {
            return s.chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'));
        }

        /** {@code name:***:role}: a spec fit for an error message. */
        private static String masked(String spec) {
            int first = spec.indexOf(':');
            int last = spec.lastIndexOf(':');
            return first < 0 ? "'***'" : "'" + spec.substring(0, first) + ":***"
                    + (last > first ? spec.substring(last) : "") + "'";
        }

        private static void warnIfShared(Path file) {
            try {
                Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file);
                if (mode.contains(PosixFilePermission.GROUP_READ) || mode.contains(PosixFilePermission.OTHERS_READ)) {
                    LOG.warn("the users file {} may be read by other users than its owner (chmod 600 it)", file);
                }
            } catch (IOException | UnsupportedOperationException e) {
                // not a POSIX file system: nothing to check
            }
        }
    }
}

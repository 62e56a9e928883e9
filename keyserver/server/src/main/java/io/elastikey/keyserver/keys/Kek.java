// Kek -- the key-encryption key that seals private keys at rest: from a 0600 file or ELASTIKEY_KEK.
package io.elastikey.keyserver.keys;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

/**
 * A 256-bit AES key under which every private key in the store is sealed ({@link Sealer}).
 *
 * <p>It comes from one of two places, in this order:
 * <ol>
 *   <li>the environment variable {@value #ENVIRONMENT_VARIABLE}, the base64 of 32 bytes: for containers whose
 *       secrets arrive as environment variables;
 *   <li>a file holding the same base64 text (default {@code <data>/kek}). A file that group or others may read or
 *       write is refused, because whoever reads it can unseal every key, and whoever can replace it can make the
 *       server seal new keys under a key they know. {@link #create} writes a new one with mode 0600, set in the
 *       system call that creates the file.
 * </ol>
 *
 * <p>The key bytes never leave this object except as the {@link SecretKey} the sealer uses; {@link #toString()}
 * and every message name only where the key came from.
 */
public final class Kek {
    /** The environment variable that, when set, holds the KEK and takes precedence over the file. */
    public static final String ENVIRONMENT_VARIABLE = "ELASTIKEY_KEK";
    /** The KEK length: AES-256. */
    public static final int LENGTH = 32;

    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> GROUP_OR_OTHERS = EnumSet.of(
            PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE,
            PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);
    private static final SecureRandom RANDOM = new SecureRandom();

    private final SecretKey key;
    private final String source;

    private Kek(byte[] key, String source) {
        this.key = new SecretKeySpec(key, "AES");
        this.source = source;
        Arrays.fill(key, (byte) 0);
    }

    /**
     * The KEK from {@code environment}'s {@value #ENVIRONMENT_VARIABLE} when set, else from {@code file}.
     *
     * @throws KekException when the variable or file is malformed, or the file is missing or too open
     */
    public static Kek resolve(Map<String, String> environment, Path file) {
        String fromEnvironment = environment.get(ENVIRONMENT_VARIABLE);
        if (fromEnvironment != null && !fromEnvironment.isBlank()) {
            return fromBase64(fromEnvironment, "environment variable " + ENVIRONMENT_VARIABLE);
        }
        return readFile(file);
    }

    /** Whether {@link #resolve} would find a KEK (the variable is set or the file exists). */
    public static boolean isAvailable(Map<String, String> environment, Path file) {
        String fromEnvironment = environment.get(ENVIRONMENT_VARIABLE);
        return (fromEnvironment != null && !fromEnvironment.isBlank()) || Files.exists(file);
    }

    /**
     * Reads a KEK file, refusing one that group or others may access.
     *
     * @throws KekException naming the file, and its mode when that is the problem
     */
    public static Kek readFile(Path file) {
        String source = "file " + file;
        try {
            if (file.getFileSystem().supportedFileAttributeViews().contains("posix")) {
                Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file);
                if (mode.stream().anyMatch(GROUP_OR_OTHERS::contains)) {
                    throw new KekException("KEK " + source + " has mode " + PosixFilePermissions.toString(mode)
                            + "; it must be readable and writable by its owner only (chmod 600 " + file + ")");
                }
            }
            byte[] text = Files.readAllBytes(file);
            try {
                return fromBase64(new String(text, StandardCharsets.US_ASCII), source);
            } finally {
                Arrays.fill(text, (byte) 0);
            }
        } catch (NoSuchFileException e) {
            throw new KekException("KEK " + source + " does not exist; set " + ENVIRONMENT_VARIABLE
                    + " or create the file (the keys commands create one on first use)");
        } catch (IOException e) {
            throw new KekException("cannot read KEK " + source + ": " + e.getMessage(), e);
        }
    }

    /**
     * Creates {@code file} with a new random KEK, mode 0600 from the moment it exists.
     *
     * @throws KekException when the file already exists (a KEK is never overwritten) or cannot be written
     */
    public static Kek create(Path file) {
        byte[] key = new byte[LENGTH];
        RANDOM.nextBytes(key);
        byte[] base64 = Base64.getEncoder().encode(key);
        byte[] text = Arrays.copyOf(base64, base64.length + 1);
        text[base64.length] = '\n';
        Arrays.fill(base64, (byte) 0);
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.createFile(file, ownerOnly(file));
            Files.write(file, text);
        } catch (FileAlreadyExistsException e) {
            throw new KekException("KEK file " + file + " already exists; it is never overwritten");
        } catch (IOException e) {
            throw new KekException("cannot create KEK file " + file + ": " + e.getMessage(), e);
        } finally {
            Arrays.fill(text, (byte) 0);
        }
        return new Kek(key, "file " + file);
    }

    /**
     * A KEK from its base64 text (surrounding white space ignored).
     *
     * @param source where the text came from, for messages, e.g. {@code file /etc/elastikey/kek}
     * @throws KekException when the text is not the base64 of exactly 32 bytes
     */
    public static Kek fromBase64(String text, String source) {
        byte[] key;
        try {
            key = Base64.getDecoder().decode(text.strip());
        } catch (IllegalArgumentException e) {
            throw new KekException("KEK " + source + " is not base64 text (expected the base64 of "
                    + LENGTH + " random bytes, e.g. from: head -c 32 /dev/urandom | base64)");
        }
        if (key.length != LENGTH) {
            int length = key.length;
            Arrays.fill(key, (byte) 0);
            throw new KekException("KEK " + source + " holds " + length + " bytes; it must hold exactly "
                    + LENGTH + " (AES-256)");
        }
        return new Kek(key, source);
    }

    /** Where the KEK came from, e.g. {@code file /data/kek}: for messages, never the key. */
    public String source() {
        return source;
    }

    SecretKey secretKey() {
        return key;
    }

    /** HMAC-SHA256 of {@code purpose} under the KEK: a separate 32-byte secret per purpose (see KeyRepository). */
    byte[] derive(String purpose) {
        byte[] raw = key.getEncoded();
        try {
            javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(raw, "HmacSHA256"));
            return mac.doFinal(("elastikey " + purpose).getBytes(StandardCharsets.UTF_8));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is unavailable", e);
        } finally {
            Arrays.fill(raw, (byte) 0);
        }
    }

    /** An AES-256 key of its own for {@code purpose} ({@link #derive}), for data that is not a key record. */
    Kek derivedKek(String purpose) {
        return new Kek(derive(purpose), source + ", derived for " + purpose);
    }

    @Override
    public String toString() {
        return "Kek[" + source + "]";
    }

    /** Mode 0600 for a file created on a POSIX file system (none elsewhere): for files that hold key material. */
    static FileAttribute<?>[] ownerOnly(Path file) {
        if (!file.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            return new FileAttribute<?>[0];
        }
        return new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(OWNER_ONLY)};
    }
}

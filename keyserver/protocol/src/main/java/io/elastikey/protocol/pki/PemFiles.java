// PemFiles -- PEM files on disk: private keys created owner-only, nothing ever overwritten.
package io.elastikey.protocol.pki;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Set;

/**
 * {@link Pem} for files. Errors name the file, so a message such as {@code pki/ca.key: expected one unencrypted
 * private key ..., found a PEM block CERTIFICATE} tells an operator which file to fix.
 *
 * <p>Writers create the file and refuse to replace an existing one ({@link FileAlreadyExistsException}): a key
 * file is never clobbered by accident. A private key file is created with mode 0600 in the same system call that
 * creates it, not chmod-ed afterwards, so there is no moment in which another user could open it. On file systems
 * without POSIX permissions (Windows) the file gets the directory's default access rights.
 *
 * <p>Files are read as ISO-8859-1, which cannot fail to decode, so a binary file is reported as such rather than as
 * a charset error.
 */
public final class PemFiles {
    /** Read and write for the owner only: the mode of every private key file written here. */
    public static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private PemFiles() {
    }

    /** The one unencrypted private key in {@code file}; see {@link Pem#readPrivateKey(String)}. */
    public static PrivateKey readPrivateKey(Path file) throws IOException {
        return Pem.readPrivateKey(read(file), file.toString());
    }

    /** The one public key in {@code file}; see {@link Pem#readPublicKey(String)}. */
    public static PublicKey readPublicKey(Path file) throws IOException {
        return Pem.readPublicKey(read(file), file.toString());
    }

    /** The first certificate in {@code file}: the leaf of a chain. */
    public static X509Certificate readCertificate(Path file) throws IOException {
        return Pem.readCertificates(read(file), file.toString()).get(0);
    }

    /** Every certificate in {@code file}, in file order; at least one. */
    public static List<X509Certificate> readCertificates(Path file) throws IOException {
        return Pem.readCertificates(read(file), file.toString());
    }

    /**
     * Writes {@code key} as PKCS#8 PEM to a new file created with mode 0600.
     *
     * @throws FileAlreadyExistsException when {@code file} exists
     */
    public static void writePrivateKey(Path file, PrivateKey key) throws IOException {
        String pem = Pem.writePrivateKey(key);
        Files.createFile(file, withPermissions(file, OWNER_ONLY));
        Files.writeString(file, pem, StandardCharsets.US_ASCII);
    }

    /**
     * Writes {@code certificates} (a chain, leaf first, or a single certificate) to a new file.
     *
     * @throws FileAlreadyExistsException when {@code file} exists
     */
    public static void writeCertificates(Path file, List<X509Certificate> certificates) throws IOException {
        String pem = Pem.writeCertificates(certificates);
        Files.createFile(file);
        Files.writeString(file, pem, StandardCharsets.US_ASCII);
    }

    /** {@code permissions} as a creation attribute when {@code path}'s file system has POSIX permissions. */
    static FileAttribute<?>[] withPermissions(Path path, Set<PosixFilePermission> permissions) {
        if (!path.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            return new FileAttribute<?>[0];
        }
        return new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(permissions)};
    }

    private static String read(Path file) throws IOException {
        return new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
    }
}

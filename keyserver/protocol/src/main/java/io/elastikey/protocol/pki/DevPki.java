// DevPki -- the development PKI directory: a CA, a server and a client certificate, created once and reused.
package io.elastikey.protocol.pki;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.List;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The certificates a development setup needs for mutual TLS between the edge and the key server, kept in one
 * directory so every process of a local run (and {@code ./elastikey pki init --pki DIR}) finds the same ones.
 *
 * <h2>Directory layout</h2>
 *
 * <p>Six PEM files, each certificate next to its key:
 * <ul>
 *   <li>{@code ca.pem}, {@code ca.key}: the self-signed development CA; {@code ca.pem} is the trust anchor both
 *       sides configure.
 *   <li>{@code server.pem}, {@code server.key}: the key server's certificate (serverAuth), by default for
 *       {@code localhost}, {@code 127.0.0.1} and {@code ::1}.
 *   <li>{@code client.pem}, {@code client.key}: the edge's client certificate (clientAuth), common name
 *       {@value #CLIENT_NAME}.
 * </ul>
 * Certificates hold one {@code CERTIFICATE} block (the leaf; the CA is in {@code ca.pem}); keys are unencrypted
 * PKCS#8 {@code PRIVATE KEY} blocks with mode 0600, set when the file is created. A directory created here gets
 * mode 0700. Nothing else lives there, so the directory can be deleted to start over.
 *
 * <h2>Idempotence</h2>
 *
 * <p>{@link #loadOrCreate(Path)} treats each certificate and its key as a pair: a pair on disk is loaded and
 * checked (the key matches, the CA issued the leaf), a missing pair is created, and a half pair is an error naming
 * the missing file, because silently replacing its partner could throw away a key someone relies on. So deleting
 * {@code server.pem} and {@code server.key} reissues the server certificate from the existing CA, and a second call
 * returns what the first created. Files are never overwritten; two processes creating the same directory at the same
 * moment make one of them fail with {@code FileAlreadyExistsException}, and running it again loads the other's
 * files.
 */
public final class DevPki {
    public static final String CA_CERTIFICATE = "ca.pem";
    public static final String CA_KEY = "ca.key";
    public static final String SERVER_CERTIFICATE = "server.pem";
    public static final String SERVER_KEY = "server.key";
    public static final String CLIENT_CERTIFICATE = "client.pem";
    public static final String CLIENT_KEY = "client.key";

    /** The names the server certificate covers unless told otherwise: every way to say "this machine". */
    public static final List<String> DEFAULT_SERVER_NAMES = List.of("localhost", "127.0.0.1", "::1");
    /** P-256: fast to generate and to handshake with, and accepted by every TLS stack. */
    public static final KeyType DEFAULT_KEY_TYPE = KeyType.EC_P256;

    static final String CA_NAME = "Elastikey Development CA";
    static final String CLIENT_NAME = "elastikey-dev-client";
    static final long CA_DAYS = 3650;
    static final long LEAF_DAYS = 825;

    private static final Logger LOG = LoggerFactory.getLogger(DevPki.class);
    private static final Set<PosixFilePermission> DIRECTORY_MODE = PosixFilePermissions.fromString("rwx------");

    private final Path directory;
    private final CertificateAuthority ca;
    private final IssuedCertificate server;
    private final IssuedCertificate client;

    private DevPki(Path directory, CertificateAuthority ca, IssuedCertificate server, IssuedCertificate client) {
        this.directory = directory;
        this.ca = ca;
        this.server = server;
        this.client = client;
    }

    /** {@link #loadOrCreate(Path, KeyType, List)} with {@link #DEFAULT_KEY_TYPE} and {@link #DEFAULT_SERVER_NAMES}. */
    public static DevPki loadOrCreate(Path directory) throws IOException, GeneralSecurityException {
        return loadOrCreate(directory, DEFAULT_KEY_TYPE, DEFAULT_SERVER_NAMES);
    }

    /**
     * Loads the PKI in {@code directory}, first creating the directory and whichever certificate/key pairs are
     * missing. {@code keyType} and {@code serverNames} apply to what is created; pairs already there are kept as
     * they are.
     *
     * @param serverNames the server certificate's DNS names and IP addresses; the first is also its common name
     * @throws NoSuchFileException when one file of a pair exists without the other
     * @throws PemException when a file does not hold what its name promises
     * @throws GeneralSecurityException when a key does not match its certificate or the CA did not issue a leaf
     */
    public static DevPki loadOrCreate(Path directory, KeyType keyType, List<String> serverNames)
            throws IOException, GeneralSecurityException {
        if (serverNames.isEmpty()) {
            throw new IllegalArgumentException("the server certificate needs at least one name");
        }
        if (!Files.isDirectory(directory)) {
            Files.createDirectories(directory, PemFiles.withPermissions(directory, DIRECTORY_MODE));
        }
        CertificateAuthority ca;
        if (exists(directory, CA_CERTIFICATE, CA_KEY)) {
            ca = loadCa(directory);
        } else {
            ca = CertificateAuthority.create(CA_NAME, keyType, Validity.days(CA_DAYS));
            write(directory, CA_CERTIFICATE, CA_KEY, List.of(ca.certificate()), ca.privateKey());
            LOG.info("created {} CA in {}", keyType.cliName(), directory);
        }
        IssuedCertificate server;
        if (exists(directory, SERVER_CERTIFICATE, SERVER_KEY)) {
            server = loadLeaf(directory, SERVER_CERTIFICATE, SERVER_KEY, ca);
        } else {
            server = ca.issueServer(serverNames.get(0), serverNames, keyType, Validity.days(LEAF_DAYS));
            write(directory, SERVER_CERTIFICATE, SERVER_KEY, List.of(server.certificate()), server.privateKey());
            LOG.info("issued server certificate for {} in {}", serverNames, directory);
        }
        IssuedCertificate client;
        if (exists(directory, CLIENT_CERTIFICATE, CLIENT_KEY)) {
            client = loadLeaf(directory, CLIENT_CERTIFICATE, CLIENT_KEY, ca);
        } else {
            client = ca.issueClient(CLIENT_NAME, List.of(), keyType, Validity.days(LEAF_DAYS));
            write(directory, CLIENT_CERTIFICATE, CLIENT_KEY, List.of(client.certificate()), client.privateKey());
            LOG.info("issued client certificate {} in {}", CLIENT_NAME, directory);
        }
        return new DevPki(directory, ca, server, client);
    }

    /**
     * Loads an existing PKI without creating anything: what a server started with {@code --pki DIR} wants, so a
     * mistyped path fails instead of conjuring a CA no peer trusts.
     *
     * @throws NoSuchFileException naming the first of the six files that is missing
     */
    public static DevPki load(Path directory) throws IOException, GeneralSecurityException {
        for (String name : List.of(CA_CERTIFICATE, CA_KEY, SERVER_CERTIFICATE, SERVER_KEY, CLIENT_CERTIFICATE,
                CLIENT_KEY)) {
            if (!Files.exists(directory.resolve(name))) {
                throw new NoSuchFileException(directory.resolve(name).toString(), null,
                        "not a development PKI directory; create one with ./elastikey pki init");
            }
        }
        CertificateAuthority ca = loadCa(directory);
        return new DevPki(directory, ca, loadLeaf(directory, SERVER_CERTIFICATE, SERVER_KEY, ca),
                loadLeaf(directory, CLIENT_CERTIFICATE, CLIENT_KEY, ca));
    }

    /** The directory the files live in. */
    public Path directory() {
        return directory;
    }

    /** The development CA, whose certificate ({@code ca.pem}) both sides trust. */
    public CertificateAuthority ca() {
        return ca;
    }

    /** The server certificate and key, chain ending with the CA certificate. */
    public IssuedCertificate server() {
        return server;
    }

    /** The client certificate and key, chain ending with the CA certificate. */
    public IssuedCertificate client() {
        return client;
    }

    @Override
    public String toString() {
        return "DevPki[" + directory + ", " + ca + "]";
    }

    private static CertificateAuthority loadCa(Path directory) throws IOException, GeneralSecurityException {
        X509Certificate certificate = PemFiles.readCertificate(directory.resolve(CA_CERTIFICATE));
        PrivateKey key = readKey(directory.resolve(CA_KEY));
        warnIfExpired(directory.resolve(CA_CERTIFICATE), certificate);
        return CertificateAuthority.load(certificate, key);
    }

    private static IssuedCertificate loadLeaf(Path directory, String certificateName, String keyName,
            CertificateAuthority ca) throws IOException, GeneralSecurityException {
        X509Certificate certificate = PemFiles.readCertificate(directory.resolve(certificateName));
        PrivateKey key = readKey(directory.resolve(keyName));
        String remedy = "; delete " + certificateName + " and " + keyName + " to have them issued again";
        if (!ca.hasIssued(certificate)) {
            throw new CertificateException(directory.resolve(certificateName) + " was not issued by the CA in "
                    + CA_CERTIFICATE + remedy);
        }
        if (!KeyType.of(certificate.getPublicKey()).matches(key, certificate.getPublicKey())) {
            throw new InvalidKeyException(directory.resolve(keyName) + " is not the key of " + certificateName
                    + remedy);
        }
        warnIfExpired(directory.resolve(certificateName), certificate);
        return new IssuedCertificate(certificate, key, List.of(certificate, ca.certificate()));
    }

    /** Whether both files of a pair exist; neither is fine too, one alone is not. */
    private static boolean exists(Path directory, String certificateName, String keyName) throws NoSuchFileException {
        boolean certificate = Files.exists(directory.resolve(certificateName));
        boolean key = Files.exists(directory.resolve(keyName));
        if (certificate != key) {
            String missing = certificate ? keyName : certificateName;
            throw new NoSuchFileException(directory.resolve(missing).toString(), null, "its partner "
                    + (certificate ? certificateName : keyName) + " exists; restore " + missing
                    + " or delete both to have them created again");
        }
        return certificate;
    }

    private static void write(Path directory, String certificateName, String keyName,
            List<X509Certificate> certificates, PrivateKey key) throws IOException {
        PemFiles.writePrivateKey(directory.resolve(keyName), key);
        PemFiles.writeCertificates(directory.resolve(certificateName), certificates);
    }

    /** Reads a key file, warning when others may read it: it still works, but it should not be shared. */
    private static PrivateKey readKey(Path file) throws IOException {
        if (file.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file);
            if (!PemFiles.OWNER_ONLY.containsAll(mode)) {
                LOG.warn("{} has mode {}; private keys should be {}", file, PosixFilePermissions.toString(mode),
                        PosixFilePermissions.toString(PemFiles.OWNER_ONLY));
            }
        }
        return PemFiles.readPrivateKey(file);
    }

    private static void warnIfExpired(Path file, X509Certificate certificate) {
        Instant notAfter = certificate.getNotAfter().toInstant();
        if (notAfter.isBefore(Instant.now())) {
            LOG.warn("{} expired on {}; peers will refuse it", file, notAfter);
        }
    }
}

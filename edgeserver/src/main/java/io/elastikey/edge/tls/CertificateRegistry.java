package io.elastikey.edge.tls;

import io.elastikey.protocol.config.FileStamp;
import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.protocol.pki.Pem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The certificate chains the edge presents, read from a directory with one PEM chain per file (leaf first),
 * indexed by the names they cover so SNI picks one in a hash lookup however many there are.
 *
 * <p>An instance is immutable: a change on disk builds a new registry (see {@link EdgeTls}), so handshakes
 * never see a half-loaded directory. A file that cannot be used is skipped with one log line and counted in
 * {@link #rejected()}; the others are still served. A file holding a private key is refused outright: the
 * edge is the machine that must never hold one.
 *
 * <p>Selection for a server name, per key type: an exact name, then a wildcard one label up
 * ({@code *.example.com} for {@code www.example.com}), then the default certificate (the file named by
 * {@code certificates.default}, or the first file by name), so clients without SNI still get an answer.
 */
public final class CertificateRegistry {
    private static final Logger log = LoggerFactory.getLogger(CertificateRegistry.class);
    /** Files between two progress lines of a load: a million certificates take minutes to read. */
    private static final int PROGRESS_EVERY = 100_000;

    /** Name to its chains, indexed by {@link #typeIndex}: a name has at most one RSA and one ECDSA chain. */
    private final Map<String, CertificateEntry[]> byName;
    private final Map<String, CertificateEntry> byAlias;
    private final List<CertificateEntry> entries;
    private final List<CertificateEntry> defaults;
    private final int filesRead;
    private final int rejected;

    private CertificateRegistry(List<CertificateEntry> entries, List<CertificateEntry> defaults, int filesRead,
                                int rejected) {
        this.byName = new HashMap<>();
        this.byAlias = new HashMap<>();
        this.entries = List.copyOf(entries);
        for (CertificateEntry entry : entries) {
            byAlias.put(entry.alias(), entry);
            for (String name : entry.names()) {
                CertificateEntry[] chains = byName.computeIfAbsent(name, n -> new CertificateEntry[2]);
                // The first file (by name) wins a contested name, whatever order the directory lists in.
                if (chains[typeIndex(entry.keyType())] == null) {
                    chains[typeIndex(entry.keyType())] = entry;
                }
            }
        }
        this.defaults = List.copyOf(defaults);
        this.filesRead = filesRead;
        this.rejected = rejected;
    }

    /**
     * Reads every {@code *.pem}, {@code *.crt} and {@code *.cer} file in {@code directory}.
     *
     * @param defaultFile the file name of the default certificate; when absent the first usable file is used
     * @throws IOException when the directory cannot be listed or no file in it is usable
     */
    public static CertificateRegistry load(Path directory, String defaultFile) throws IOException {
        return readDirectory(directory, defaultFile, Map.of());
    }

    /**
     * Reads {@code directory} again, keeping {@code previous}'s entry for every file whose stamp (time, size, inode)
     * is the one it was read with: adding a certificate to a directory of a million reads one file, not a million.
     */
    public static CertificateRegistry reload(Path directory, String defaultFile, CertificateRegistry previous)
            throws IOException {
        Map<String, CertificateEntry> byFile = new HashMap<>(previous.entries.size() * 4 / 3 + 1);
        for (CertificateEntry entry : previous.entries) {
            byFile.put(entry.file(), entry);
        }
        return readDirectory(directory, defaultFile, byFile);
    }

    private static CertificateRegistry readDirectory(Path directory, String defaultFile,
                                                     Map<String, CertificateEntry> known) throws IOException {
        List<Path> files = files(directory);
        List<CertificateEntry> entries = new ArrayList<>(files.size());
        Map<ByteBuffer, EncodedCertificate> issuers = new HashMap<>();
        int read = 0;
        int rejected = 0;
        for (Path file : files) {
            long stamp = FileStamp.of(file);
            CertificateEntry unchanged = known.get(file.getFileName().toString());
            if (unchanged != null && unchanged.stamp() == stamp && stamp != FileStamp.MISSING) {
                entries.add(unchanged);
                shareIssuers(unchanged, issuers);
            } else {
                read++;
                try {
                    entries.add(readFile(file, stamp, issuers));
                } catch (IOException | CertificateException | IllegalArgumentException e) {
                    rejected++;
                    log.error("certificate file {} skipped: {}", file, e.getMessage());
                }
            }
            int done = entries.size() + rejected;
            if (done % PROGRESS_EVERY == 0 && done < files.size()) {
                log.info("{} of {} certificate files in {} done, {} of them read", done, files.size(), directory,
                        read);
            }
        }
        if (entries.isEmpty()) {
            throw new IOException("no usable certificate chain in " + directory + " (" + files.size()
                    + " file(s) read; each must be a PEM chain, leaf first, without a private key)");
        }
        List<CertificateEntry> defaults = entries.stream().filter(e -> e.file().equals(defaultFile)).toList();
        return new CertificateRegistry(entries, defaults.isEmpty() ? List.of(entries.get(0)) : defaults, read,
                rejected);
    }

    /** Makes {@code entry}'s issuers the ones new chains with the same issuers share. */
    private static void shareIssuers(CertificateEntry entry, Map<ByteBuffer, EncodedCertificate> issuers) {
        EncodedCertificate[] chain = entry.chain();
        for (int i = 1; i < chain.length; i++) {
            issuers.putIfAbsent(ByteBuffer.wrap(chain[i].der()), chain[i]);
        }
    }

    /**
     * The files a load would read, sorted by name: also what the reload watcher polls. Chosen by name alone: a
     * look at each (is it a regular file?) would double what a poll of a million files costs, and anything else
     * with such a name fails to be read and is reported as skipped.
     */
    public static List<Path> files(Path directory) throws IOException {
        try (Stream<Path> listing = Files.list(directory)) {
            return listing.filter(CertificateRegistry::isCertificateFile).sorted().toList();
        }
    }

    private static boolean isCertificateFile(Path file) {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        return name.endsWith(".pem") || name.endsWith(".crt") || name.endsWith(".cer");
    }

    /**
     * The chain in {@code file} (whose stamp was {@code stamp} before it was read), kept as encodings; an issuer
     * already in {@code issuers} (by encoding) is that object, so a million leaves of one CA hold one copy of it.
     */
    static CertificateEntry readFile(Path file, long stamp, Map<ByteBuffer, EncodedCertificate> issuers)
            throws IOException, CertificateException {
        String text = Files.readString(file, StandardCharsets.US_ASCII);
        if (text.contains("PRIVATE KEY-----")) {
            throw new IOException("it holds a private key; the edge serves certificates only and its keys stay in "
                    + "the key server (move the key there with 'elastikey keys import')");
        }
        List<X509Certificate> chain = Pem.readCertificates(text);
        if (chain.isEmpty()) {
            throw new IOException("it holds no certificate");
        }
        X509Certificate leaf = chain.get(0);
        String keyType = keyType(leaf);
        List<String> names = names(leaf);
        if (names.isEmpty()) {
            throw new IOException("its leaf certificate names no DNS name (subjectAltName or CN)");
        }
        EncodedCertificate[] encoded = new EncodedCertificate[chain.size()];
        encoded[0] = new EncodedCertificate(leaf, KeyIds.keyId(leaf.getPublicKey()));
        for (int i = 1; i < encoded.length; i++) {
            EncodedCertificate issuer = new EncodedCertificate(chain.get(i), null);
            encoded[i] = issuers.computeIfAbsent(ByteBuffer.wrap(issuer.der()), d -> issuer);
        }
        return new CertificateEntry(KeyIds.hex(KeyIds.certificateSha1(leaf)), keyType, names, encoded,
                file.getFileName().toString(), stamp);
    }

    private static String keyType(X509Certificate leaf) {
        if (leaf.getPublicKey() instanceof RSAPublicKey) {
            return "RSA";
        }
        if (leaf.getPublicKey() instanceof ECPublicKey) {
            return "EC";
        }
        throw new IllegalArgumentException("its key is " + leaf.getPublicKey().getAlgorithm()
                + "; the edge serves RSA and ECDSA certificates");
    }

    private static List<String> names(X509Certificate leaf) throws CertificateParsingException {
        Set<String> names = new LinkedHashSet<>();
        Collection<List<?>> alternatives = leaf.getSubjectAlternativeNames();
        if (alternatives != null) {
            for (List<?> alternative : alternatives) {
                if (Integer.valueOf(2).equals(alternative.get(0))) {
                    names.add(((String) alternative.get(1)).toLowerCase(Locale.ROOT));
                }
            }
        }
        if (names.isEmpty()) {
            String subject = leaf.getSubjectX500Principal().getName();
            for (String part : subject.split(",")) {
                if (part.startsWith("CN=")) {
                    names.add(part.substring(3).toLowerCase(Locale.ROOT));
                }
            }
        }
        return List.copyOf(names);
    }

    /**
     * The chain to present for {@code serverName} (may be {@code null}: no SNI) to a client that accepts
     * {@code keyType}, or {@code null} when none fits, so the caller can try the next key type.
     *
     * <p>A name the registry knows is only ever answered with its own chains: when it has none of this key
     * type, the answer is {@code null} rather than the default, so the client gets the right name in the
     * other key type instead of a certificate for another name.
     */
    public CertificateEntry select(String serverName, String keyType) {
        int type = typeIndex(keyType);
        if (type < 0) {
            return null;
        }
        if (serverName != null) {
            String name = serverName.toLowerCase(Locale.ROOT);
            CertificateEntry[] chains = byName.get(name);
            if (chains == null) {
                int dot = name.indexOf('.');
                chains = dot > 0 ? byName.get("*" + name.substring(dot)) : null;
            }
            if (chains != null) {
                return chains[type];
            }
        }
        for (CertificateEntry entry : defaults) {
            if (typeIndex(entry.keyType()) == type) {
                return entry;
            }
        }
        return null;
    }

    /** The entry {@link CertificateEntry#alias()} names, or {@code null}. */
    public CertificateEntry byAlias(String alias) {
        return byAlias.get(alias);
    }

    /** Every usable chain, in the order of their file names. */
    public List<CertificateEntry> entries() {
        return entries;
    }

    public int size() {
        return byAlias.size();
    }

    /** How many files were read to make this registry: on a reload, only the new and changed ones. */
    public int filesRead() {
        return filesRead;
    }

    /** How many files in the directory could not be used. */
    public int rejected() {
        return rejected;
    }

    private static int typeIndex(String keyType) {
        return switch (keyType) {
            case "RSA" -> 0;
            case "EC" -> 1;
            default -> -1;
        };
    }
}

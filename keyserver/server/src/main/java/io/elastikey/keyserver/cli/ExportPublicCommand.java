// ExportPublicCommand -- `keys export-public`: the PEM certificates of all or some keys, for edges and load generators.
package io.elastikey.keyserver.cli;

import io.elastikey.keyserver.keys.KeyRepository;
import io.elastikey.protocol.pki.KeyIds;

import java.io.BufferedWriter;
import java.io.FilterWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Writes every stored certificate (or those of the keys named) as PEM: one {@code CERTIFICATE} block per
 * certificate, the leaf only unless {@code --chain}. A key stored under several certificates contributes each of
 * them. This is public data: the load generator reads it to know which keys exist and to check signatures.
 */
@Command(name = "export-public", mixinStandardHelpOptions = true,
        description = {"Export the PEM certificates of all keys, or of the keys named (public data only).",
                "One CERTIFICATE block per certificate (leaf only, or leaf and issuers with --chain); a key "
                        + "stored under several certificates contributes each. Streams, for millions of keys."})
final class ExportPublicCommand extends KeysSubcommand {
    @Parameters(paramLabel = "ID|ALIAS", arity = "0..*", description = "Keys to export (default: all).")
    List<String> identifiers = new ArrayList<>();

    @Option(names = "--out", paramLabel = "FILE", description = "Write to FILE instead of standard output.")
    Path outFile;

    @Option(names = "--chain", description = "Each certificate followed by its issuers.")
    boolean chain;

    @Option(names = "--out-dir", paramLabel = "DIR",
            description = {"Write one file per certificate, <key ID>.pem (then -2, -3 for a key's further "
                    + "certificates), each written whole and renamed into place: the layout of the edge "
                    + "server's certificate directory. Use with --chain."})
    Path outDir;

    @Override
    int run() throws IOException {
        if (outDir != null) {
            if (outFile != null || !identifiers.isEmpty()) {
                throw new CliException("--out-dir exports every key; it cannot be combined with --out or key IDs");
            }
            return exportToDirectory();
        }
        try (RepositoryLease lease = openRepository()) {
            KeyRepository keys = lease.keys();
            long[] exported = {0};
            try (Writer writer = outFile == null ? new NonClosingWriter(out())
                    : Files.newBufferedWriter(outFile, StandardCharsets.US_ASCII)) {
                BufferedWriter pem = new BufferedWriter(writer, 1 << 16);
                if (identifiers.isEmpty()) {
                    forEachCertificate(keys, (keyId, ofKey, text) -> {
                        write(pem, text);
                        exported[0]++;
                    });
                } else {
                    for (String identifier : identifiers) {
                        List<String> certificates = keys.certificatesPem(identifier, chain);
                        if (certificates.isEmpty()) {
                            throw new CliException("no key has the identifier " + KeyIds.normalize(identifier)
                                    + "; nothing was exported");
                        }
                        certificates.forEach(text -> write(pem, text));
                        exported[0] += certificates.size();
                    }
                }
                pem.flush();
            }
            if (outFile != null) {
                out().printf("exported %,d certificates to %s%n", exported[0], outFile);
            }
        }
        return 0;
    }

    /** One certificate of an export: its key, which of that key's certificates it is (from 1), its PEM. */
    @FunctionalInterface
    private interface CertificateVisitor {
        void visit(String keyId, int ofKey, String pem);
    }

    /**
     * Visits every stored certificate with a progress display counted in keys (a key's certificates come together,
     * and count as one step): a million take a minute or more.
     */
    private void forEachCertificate(KeyRepository keys, CertificateVisitor visitor) {
        Progress progress = progress().start(System.err, "exporting", keys.count(), "keys");
        String[] previous = {null};
        int[] ofKey = {0};
        long[] done = {0};
        keys.forEachCertificatePem(chain, (keyId, text) -> {
            if (keyId.equals(previous[0])) {
                ofKey[0]++;
            } else {
                previous[0] = keyId;
                ofKey[0] = 1;
                progress.update(++done[0]);
            }
            visitor.visit(keyId, ofKey[0], text);
        });
        progress.finish(done[0]);
    }

    private int exportToDirectory() throws IOException {
        Files.createDirectories(outDir);
        long[] exported = {0};
        try (RepositoryLease lease = openRepository()) {
            KeyRepository keys = lease.keys();
            forEachCertificate(keys, (keyId, ofKey, text) -> {
                String name = keyId + (ofKey == 1 ? "" : "-" + ofKey) + ".pem";
                try {
                    Path partial = outDir.resolve("." + name + ".partial");
                    Files.writeString(partial, text, StandardCharsets.US_ASCII);
                    Files.move(partial, outDir.resolve(name), StandardCopyOption.REPLACE_EXISTING,
                            StandardCopyOption.ATOMIC_MOVE);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                exported[0]++;
            });
        }
        out().printf("exported %,d certificates to %s%n", exported[0], outDir);
        return 0;
    }

    private static void write(BufferedWriter pem, String text) {
        try {
            pem.write(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Standard output is flushed, not closed, when the export ends. */
    private static final class NonClosingWriter extends FilterWriter {
        NonClosingWriter(Writer out) {
            super(out);
        }

        @Override
        public void close() throws IOException {
            flush();
        }
    }
}

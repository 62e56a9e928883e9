// ShowCommand -- `keys show`: one key's public details, found by key ID or any alias.
package io.elastikey.keyserver.cli;

import io.elastikey.keyserver.keys.KeyDetails;
import io.elastikey.keyserver.keys.KeyRepository;
import io.elastikey.keyserver.keys.KeySummary;
import io.elastikey.protocol.pki.KeyIds;

import java.io.PrintWriter;
import java.security.cert.X509Certificate;
import java.util.List;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Prints what is public about a key: its identifiers, certificates and tags. The private key is not unsealed. */
@Command(name = "show", mixinStandardHelpOptions = true,
        description = "Show a key's identifiers, tags and certificates (public data only).")
final class ShowCommand extends KeysSubcommand {
    @Parameters(paramLabel = "ID|ALIAS", description = "Key ID, certificate SHA-1, Keyless SKI or modulus digest "
            + "(hex, either case).")
    String identifier;

    @Option(names = "--pem", description = "Also print the current certificate chain as PEM.")
    boolean pem;

    @Override
    int run() {
        try (RepositoryLease lease = openRepository()) {
            KeyRepository keys = lease.keys();
            KeyDetails details = keys.details(identifier);
            if (details == null) {
                throw new CliException("no key has the identifier " + KeyIds.normalize(identifier));
            }
            print(out(), details);
            if (pem) {
                out().print(keys.certificatesPem(identifier, true).get(0));
            }
        }
        return 0;
    }

    static void print(PrintWriter out, KeyDetails details) {
        KeySummary key = details.summary();
        out.println("key ID             " + key.keyId());
        out.println("type               " + key.type().cliName());
        out.println("created            " + key.created());
        out.println("tags               " + String.join(", ", key.tags().stream().sorted().toList()));
        out.println("names              " + String.join(", ", key.names()));
        out.println("certificate SHA-1  " + key.certificateSha1());
        out.println("Keyless SKI        " + key.keylessSki());
        if (key.modulusDigest() != null) {
            out.println("modulus SHA-256    " + key.modulusDigest());
        }
        List<X509Certificate> chain = details.chain();
        for (int i = 0; i < chain.size(); i++) {
            X509Certificate certificate = chain.get(i);
            out.println((i == 0 ? "certificate        " : "  issued by        ")
                    + certificate.getSubjectX500Principal().getName());
            if (i == 0) {
                out.println("  serial           " + certificate.getSerialNumber().toString(16));
                out.println("  valid            " + certificate.getNotBefore().toInstant() + " to "
                        + certificate.getNotAfter().toInstant());
            }
        }
        if (!details.otherCertificateSha1s().isEmpty()) {
            out.println("earlier certificates (SHA-1), " + details.otherCertificateSha1s().size() + ":");
            details.otherCertificateSha1s().stream().limit(20).forEach(sha1 -> out.println("  " + sha1));
            if (details.otherCertificateSha1s().size() > 20) {
                out.println("  ...");
            }
        }
    }
}

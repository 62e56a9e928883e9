// ImportCommand -- `keys import`: keys and certificates from PEM, DER and PKCS#12 files and directories.
package io.elastikey.keyserver.cli;

import io.elastikey.keyserver.keys.KeyEntry;
import io.elastikey.keyserver.keys.KeyRepository;
import io.elastikey.protocol.pki.KeyIds;

import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Imports keys with their certificates; see {@link ImportPlan} for how they are paired. */
@Command(name = "import", mixinStandardHelpOptions = true,
        description = {"Import private keys with their certificates.",
                "Inputs are files or directories (walked recursively): PEM (a key and/or certificates, leaf "
                        + "first, its chain after it), DER (one key or one certificate), PKCS#12 (.p12/.pfx, "
                        + "with --password). Keys and certificates are paired by public key, whatever the file "
                        + "names; a key without a certificate stops the import before anything is written.",
                "Importing a key again updates it: its certificate and tags are replaced, nothing is duplicated."})
final class ImportCommand extends KeysSubcommand {
    @Parameters(paramLabel = "FILE|DIR", arity = "1..*", description = "Key, certificate and PKCS#12 files, "
            + "or directories of them.")
    List<Path> inputs;

    @Option(names = "--password", arity = "0..1", interactive = true, paramLabel = "PASSWORD",
            description = "Password of PKCS#12 inputs (asked for when given without a value).")
    char[] password;

    @Option(names = "--tag", split = ",", paramLabel = "TAG",
            description = "Tags for the imported keys (authorization policies can grant by tag).")
    List<String> tags = new ArrayList<>();

    @Option(names = "--batch", defaultValue = "1000", paramLabel = "N",
            description = "Keys per store write (default: ${DEFAULT-VALUE}).")
    int batch;

    @Mixin
    WarmStartMixin warmStart = new WarmStartMixin();

    @Override
    int run() throws Exception {
        try {
            ImportPlan plan = ImportPlan.scan(inputs, password);
            Set<String> tagSet = Set.copyOf(tags);
            int total = plan.keyFiles.size() + plan.pkcs12Keys;
            Progress progress = progress().start(System.err, "importing", total, "keys");
            Set<String> keyIds = new HashSet<>();
            int certificates = 0;
            int done = 0;
            List<String> fingerprints = new ArrayList<>();
            try (RepositoryLease lease = warmStart.open(this)) {
                KeyRepository keys = lease.keys();
                List<KeyEntry> pending = new ArrayList<>();
                for (var keyFile : plan.keyFiles.entrySet()) {
                    KeyFile contents = KeyFile.read(keyFile.getKey(), password);
                    for (Path certificateFile : plan.certificateFiles.get(keyFile.getValue())) {
                        List<X509Certificate> chain = certificateFile.equals(keyFile.getKey())
                                ? contents.certificates() : KeyFile.read(certificateFile, password).certificates();
                        pending.add(KeyEntry.of(contents.key(), chain, tagSet));
                    }
                    done++;
                    certificates += flushIfFull(lease, pending, keyIds, fingerprints, false);
                    progress.update(done);
                }
                for (Path file : plan.pkcs12Files) {
                    for (KeyFile.Pair pair : KeyFile.read(file, password).pairs()) {
                        pending.add(KeyEntry.of(pair.key(), pair.chain(), tagSet));
                        done++;
                    }
                    certificates += flushIfFull(lease, pending, keyIds, fingerprints, false);
                    progress.update(done);
                }
                certificates += flushIfFull(lease, pending, keyIds, fingerprints, true);
                progress.finish(done);
                out().printf("imported %,d keys (%,d certificates) from %,d files; the store holds %,d keys%n",
                        keyIds.size(), certificates, plan.files.size(), keys.count());
                report(plan);
                warmStart.finish(keys, fingerprints, progress(), out());
            }
            return 0;
        } finally {
            if (password != null) {
                Arrays.fill(password, '\0');
            }
        }
    }

    /** Writes {@code pending} when a batch is full (or {@code last}); notes their key IDs and certificate SHA-1s. */
    private int flushIfFull(RepositoryLease lease, List<KeyEntry> pending, Set<String> keyIds,
                            List<String> fingerprints, boolean last) {
        if (pending.isEmpty() || (!last && pending.size() < batch)) {
            return 0;
        }
        keyIds.addAll(lease.keys().addAll(pending, lease.changes()));
        for (KeyEntry entry : pending) {
            fingerprints.add(KeyIds.hex(KeyIds.certificateSha1(entry.certificate())));
        }
        int written = pending.size();
        pending.clear();
        return written;
    }

    private void report(ImportPlan plan) {
        long withoutKey = plan.certificatesWithoutKey();
        if (withoutKey > 0) {
            out().printf("skipped %,d certificate file(s) whose key was not among the inputs (a CA certificate?)%n",
                    withoutKey);
        }
        if (!plan.unrecognized.isEmpty()) {
            out().printf("skipped %,d file(s) holding no key or certificate, e.g. %s%n", plan.unrecognized.size(),
                    plan.unrecognized.get(0));
        }
    }
}

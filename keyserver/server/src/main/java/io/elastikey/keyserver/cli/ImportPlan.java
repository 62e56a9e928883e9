// ImportPlan -- the first pass of `keys import`: which key file goes with which certificate file, by public key.
package io.elastikey.keyserver.cli;

import io.elastikey.keyserver.keys.PublicKeys;
import io.elastikey.protocol.pki.KeyIds;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Scans every input once and remembers, per file, only key IDs: which key each key file holds and which key each
 * certificate file's leaf certifies. Keys and certificates are paired by key ID (SHA-256 of the public key), so
 * file names do not matter and a directory of {@code *.key} and {@code *.crt} files imports as it is. Nothing is
 * written until every key has a certificate; the second pass ({@link ImportCommand}) reads the files again,
 * which keeps memory at a few hundred bytes per file however many there are.
 */
final class ImportPlan {
    final List<Path> files = new ArrayList<>();
    final Map<Path, String> keyFiles = new LinkedHashMap<>();
    final Map<String, List<Path>> certificateFiles = new HashMap<>();
    final List<Path> pkcs12Files = new ArrayList<>();
    final List<Path> unrecognized = new ArrayList<>();
    int pkcs12Keys;

    /**
     * Scans {@code inputs}: files, and directories walked recursively (hidden files skipped).
     *
     * @throws CliException when a file named on the command line holds no key or certificate, or a key has no
     *     certificate among the inputs
     */
    static ImportPlan scan(List<Path> inputs, char[] password) throws IOException, GeneralSecurityException {
        ImportPlan plan = new ImportPlan();
        for (Path input : inputs) {
            if (Files.isDirectory(input)) {
                for (Path file : filesUnder(input)) {
                    plan.add(KeyFile.read(file, password), false);
                }
            } else {
                plan.add(KeyFile.read(input, password), true);
            }
        }
        plan.checkEveryKeyHasACertificate();
        return plan;
    }

    /** Certificate files whose leaf is for none of the keys (a CA certificate, say). */
    long certificatesWithoutKey() {
        return certificateFiles.entrySet().stream().filter(e -> !keyFiles.containsValue(e.getKey()))
                .mapToLong(e -> e.getValue().size()).sum();
    }

    private void add(KeyFile contents, boolean named) throws GeneralSecurityException {
        files.add(contents.file());
        if (contents.isEmpty()) {
            if (named) {
                throw new CliException(contents.file() + " holds no private key or certificate (PEM, DER or "
                        + "PKCS#12 with --password)");
            }
            unrecognized.add(contents.file());
            return;
        }
        if (contents.key() != null) {
            keyFiles.put(contents.file(), KeyIds.keyId(PublicKeys.of(contents.key())));
        }
        if (!contents.certificates().isEmpty()) {
            String keyId = KeyIds.keyId(contents.certificates().get(0).getPublicKey());
            certificateFiles.computeIfAbsent(keyId, k -> new ArrayList<>()).add(contents.file());
        }
        if (!contents.pairs().isEmpty()) {
            pkcs12Files.add(contents.file());
            pkcs12Keys += contents.pairs().size();
        }
    }

    private void checkEveryKeyHasACertificate() {
        List<String> orphans = new ArrayList<>();
        keyFiles.forEach((file, keyId) -> {
            if (!certificateFiles.containsKey(keyId)) {
                orphans.add(file + " (key " + keyId + ")");
            }
        });
        if (!orphans.isEmpty()) {
            throw new CliException("no certificate among the inputs is for the key in " + String.join(", ",
                    orphans.subList(0, Math.min(5, orphans.size())))
                    + (orphans.size() > 5 ? " and " + (orphans.size() - 5) + " more" : "")
                    + "; give the certificate files too (keys are paired with certificates by public key); "
                    + "nothing was imported");
        }
        if (keyFiles.isEmpty() && pkcs12Keys == 0) {
            throw new CliException("no private key found in the inputs; nothing was imported");
        }
    }

    private static List<Path> filesUnder(Path directory) throws IOException {
        try (Stream<Path> walk = Files.walk(directory)) {
            return walk.filter(Files::isRegularFile)
                    .filter(p -> !p.getFileName().toString().startsWith("."))
                    .sorted().toList();
        }
    }
}

// HotKeyFile -- the identifiers of the parsed keys a server held, saved so the next start loads them first.
package io.elastikey.keyserver.warmup;

import io.elastikey.protocol.pki.KeyIds;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * A text file of key identifiers, hottest first, one per line: what was in the parsed-key cache. Identifiers are
 * digests of public keys and certificates, so the file holds nothing secret, and it is only a hint: a line that is
 * not an identifier is skipped, an identifier of a removed key loads nothing. Written to a temporary file and renamed
 * over the old one, so a crash mid-write leaves the previous file whole.
 */
public final class HotKeyFile {
    private final Path file;

    public HotKeyFile(Path file) {
        this.file = file;
    }

    public Path path() {
        return file;
    }

    /** Replaces the file with {@code identifiers}. */
    public void write(List<String> identifiers) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
        try (BufferedWriter out = Files.newBufferedWriter(temporary, StandardCharsets.US_ASCII)) {
            out.write("# elastikey hot keys: identifiers of the parsed-key cache, hottest first\n");
            for (String identifier : identifiers) {
                out.write(identifier);
                out.write('\n');
            }
        }
        Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Up to {@code limit} identifiers, in file order; empty when there is no file. */
    public List<String> read(int limit) throws IOException {
        List<String> identifiers = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.US_ASCII)) {
            String line;
            while (identifiers.size() < limit && (line = in.readLine()) != null) {
                if (isIdentifier(line)) {
                    identifiers.add(line);
                }
            }
        } catch (NoSuchFileException e) {
            return List.of();
        }
        return identifiers;
    }

    private static boolean isIdentifier(String line) {
        try {
            KeyIds.normalize(line);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}

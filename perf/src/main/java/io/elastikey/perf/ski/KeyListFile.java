// KeyListFile -- the compact key list: one line per key, fingerprint, type and public key, read without X.509 parsing.
package io.elastikey.perf.ski;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;

import io.elastikey.protocol.pki.KeyType;

/**
 * A PEM file of a million certificates is 700 MB and takes a minute of X.509 parsing to read; the load generator
 * needs only three fields of each. A key list holds just those, written once from the PEM file
 * ({@code ./elastikey loadgen keylist}) and read by {@code loadgen ski --keys} as fast as the disk gives lines.
 *
 * <p><b>Format</b> (ASCII, one line per key, {@code \n} endings):
 * <pre>
 * # elastikey key list v1: &lt;certificate SHA-1, upper-case hex&gt; &lt;key type&gt; &lt;SubjectPublicKeyInfo, ...&gt;
 * 3F2A...(40 hex digits) ec256 MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE...
 * </pre>
 * (the header line is cut short here; {@link #HEADER} has it whole). The header is what tells a key list from PEM. Then per key: the SHA-1 of the certificate's
 * DER as 40 hex digits (the {@code spki} an SKI client sends; either case is read), one space, the key type's
 * command-line name ({@code ec256}, {@code rsa2048}, ...: {@link KeyType#cliName()}), one space, and the key's
 * SubjectPublicKeyInfo in standard base64 with padding. A P-256 key's line is 172 bytes, so a million keys take
 * 172 MB. Blank lines and further lines starting with {@code #} are ignored. Keys keep the order of the PEM file they
 * came from, which is what {@code --key-limit} counts in.
 */
final class KeyListFile {
    static final String HEADER = "# elastikey key list v1: <certificate SHA-1, upper-case hex> <key type> "
            + "<SubjectPublicKeyInfo, base64 DER>";
    private static final String MAGIC = "# elastikey key list";
    private static final int HEX_LENGTH = 2 * SkiKeySet.FINGERPRINT_LENGTH;

    private KeyListFile() {
    }

    /** Whether {@code file} starts with a key list's header (else it is taken for PEM). */
    static boolean isKeyList(Path file) throws IOException {
        try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.ISO_8859_1)) {
            String first = reader.readLine();
            return first != null && first.startsWith(MAGIC);
        }
    }

    /**
     * Every entry of {@code file}, in order, until {@code sink} says stop.
     *
     * @throws IOException when the file cannot be read or a line is malformed (naming the line)
     */
    static void read(Path file, KeyEntry.Sink sink) throws IOException {
        Map<String, KeyType> types = new HashMap<>();
        for (KeyType type : KeyType.values()) {
            types.put(type.cliName(), type);
        }
        Base64.Decoder base64 = Base64.getDecoder();
        HexFormat hex = HexFormat.of();
        try (BufferedReader reader = new BufferedReader(
                Files.newBufferedReader(file, StandardCharsets.ISO_8859_1), 1 << 20)) {
            long number = 0;
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                number++;
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                int first = line.indexOf(' ');
                int second = first < 0 ? -1 : line.indexOf(' ', first + 1);
                KeyType type = second < 0 ? null : types.get(line.substring(first + 1, second));
                if (first != HEX_LENGTH || type == null) {
                    throw malformed(file, number, "expected <40 hex digits> <key type> <base64>");
                }
                try {
                    byte[] fingerprint = hex.parseHex(line, 0, HEX_LENGTH);
                    byte[] spki = base64.decode(line.substring(second + 1).strip());
                    if (!sink.accept(new KeyEntry(fingerprint, type, spki))) {
                        return;
                    }
                } catch (IllegalArgumentException e) {
                    throw malformed(file, number, e.getMessage());
                }
            }
        }
    }

    private static IOException malformed(Path file, long line, String why) {
        return new IOException(file + " line " + line + ": not a key list entry (" + why + ")");
    }

    /**
     * Writes a key list into a temporary file beside {@code target} and renames it into place on {@link #commit},
     * so a reader never sees half a list. {@link #close} without a commit deletes the temporary file.
     */
    static final class Writer implements Closeable {
        private final Path target;
        private final Path partial;
        private final BufferedWriter out;
        private final Base64.Encoder base64 = Base64.getEncoder();
        private final HexFormat hex = HexFormat.of().withUpperCase();
        private long written;
        private boolean committed;

        Writer(Path target) throws IOException {
            this.target = target;
            Path parent = target.toAbsolutePath().getParent();
            Files.createDirectories(parent);
            this.partial = parent.resolve("." + target.getFileName() + ".partial");
            this.out = new BufferedWriter(Files.newBufferedWriter(partial, StandardCharsets.US_ASCII), 1 << 20);
            out.write(HEADER);
            out.write('\n');
        }

        void write(KeyEntry entry) throws IOException {
            out.write(hex.formatHex(entry.fingerprint()));
            out.write(' ');
            out.write(entry.type().cliName().toLowerCase(Locale.ROOT));
            out.write(' ');
            out.write(base64.encodeToString(entry.spkiDer()));
            out.write('\n');
            written++;
        }

        long written() {
            return written;
        }

        Path target() {
            return target;
        }

        /** Flushes and renames the list into place. */
        void commit() throws IOException {
            out.close();
            Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            committed = true;
        }

        @Override
        public void close() throws IOException {
            if (!committed) {
                out.close();
                Files.deleteIfExists(partial);
            }
        }
    }
}

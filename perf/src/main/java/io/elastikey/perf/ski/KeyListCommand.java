// KeyListCommand -- `./elastikey loadgen keylist`: converts a PEM file of certificates into a compact key list, once.
//
//   ./elastikey keys export-public --data DIR --out certs.pem
//   ./elastikey loadgen keylist --from certs.pem --out ec256.keys --type ec256
//   ./elastikey loadgen ski --keys ec256.keys ...
package io.elastikey.perf.ski;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

import io.elastikey.protocol.pki.KeyType;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Streams the certificates through {@link PemCertificates} into {@link KeyListFile.Writer}s, so a million
 * certificates never sit in memory; a line every few seconds says how far it got. With several outputs (the
 * {@link #convert} form the ski-scale benchmark uses) one pass over the PEM file fills them all, each with the key
 * types it asked for.
 */
@Command(name = "keylist", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Converts PEM certificates (as `keys export-public` writes them) into a key list: one line "
                + "per key with its certificate's SHA-1, its type and its public key, which `loadgen ski --keys` "
                + "reads many times faster than PEM.",
                "Streams: a million certificates take seconds and little memory."})
public final class KeyListCommand implements Callable<Integer> {
    private static final long PROGRESS_NANOS = 5_000_000_000L;

    @Option(names = "--from", required = true, paramLabel = "PEM", description = "The certificates (PEM).")
    Path from;

    @Option(names = "--out", required = true, paramLabel = "FILE", description = "The key list to write.")
    Path out;

    @Option(names = "--type", split = ",", paramLabel = "TYPE",
            description = "Only keys of these types (rsa2048, ec256, ...; default: every key).")
    List<String> types = new ArrayList<>();

    @Override
    public Integer call() {
        Set<KeyType> wanted = EnumSet.noneOf(KeyType.class);
        try {
            types.forEach(name -> wanted.add(KeyType.parse(name)));
            Map<Path, Long> written = convert(from, Map.of(out, wanted), System.err);
            System.out.printf("wrote %,d keys to %s%n", written.get(out), out);
            return written.get(out) > 0 ? 0 : 1;
        } catch (IOException | IllegalArgumentException e) {
            System.err.println("elastikey loadgen keylist: " + e.getMessage());
            return 1;
        }
    }

    /**
     * Reads {@code pem} once and writes each output's key list (an empty type set means every type), each renamed
     * into place only when the whole file was read. Prints progress to {@code progress}.
     *
     * @return the keys written, per output
     */
    public static Map<Path, Long> convert(Path pem, Map<Path, Set<KeyType>> outputs, PrintStream progress)
            throws IOException {
        List<KeyListFile.Writer> writers = new ArrayList<>();
        List<Set<KeyType>> wanted = new ArrayList<>();
        try {
            for (Map.Entry<Path, Set<KeyType>> output : outputs.entrySet()) {
                writers.add(new KeyListFile.Writer(output.getKey()));
                wanted.add(output.getValue());
            }
            long started = System.nanoTime();
            long[] read = {0};
            long[] nextReport = {started + PROGRESS_NANOS};
            PemCertificates.read(pem, entry -> {
                for (int i = 0; i < writers.size(); i++) {
                    if (wanted.get(i).isEmpty() || wanted.get(i).contains(entry.type())) {
                        writers.get(i).write(entry);
                    }
                }
                read[0]++;
                long now = System.nanoTime();
                if (now >= nextReport[0]) {
                    nextReport[0] = now + PROGRESS_NANOS;
                    progress.printf("  keylist: %,d certificates read (%,.0f/s)%n", read[0],
                            read[0] / ((now - started) / 1e9));
                }
                return true;
            });
            Map<Path, Long> written = new LinkedHashMap<>();
            for (KeyListFile.Writer writer : writers) {
                writer.commit();
                written.put(writer.target(), writer.written());
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            progress.printf("  keylist: %,d certificates read in %.1f s (%,.0f/s)%n", read[0], seconds,
                    read[0] / Math.max(seconds, 1e-9));
            return written;
        } finally {
            for (KeyListFile.Writer writer : writers) {
                writer.close();
            }
        }
    }
}

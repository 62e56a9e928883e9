// ScaleDataSet -- the benchmark's keys, made once with ./elastikey keys and kept: a store, certificates, key lists.
package io.elastikey.perf.skiscale;

import io.elastikey.protocol.config.FileTrees;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import io.elastikey.perf.ski.KeyListCommand;
import io.elastikey.protocol.pki.KeyType;

/**
 * A data set of {@code ecKeys} ECDSA P-256 keys and {@code rsaKeys} RSA-2048 keys (every one a distinct key with its
 * own certificate: no RSA pool), in one key server data directory, made by the same commands an operator would run:
 * <pre>
 *   ./elastikey keys generate --data DIR/data --set keys.expected=E --count N --type ec256 --no-warm-start
 *   ./elastikey keys generate --data DIR/data --set keys.expected=E --count R --type rsa2048 --first N
 *   ./elastikey keys export-public --data DIR/data --set keys.expected=E --out DIR/certs.pem
 * </pre>
 * (the second one prepares the key server's first start for both: WarmStartMixin), then one pass of {@link
 * KeyListCommand#convert} splits the certificates into {@code ec256.keys} and
 * {@code rsa2048.keys}, the key lists the load generator reads in seconds.
 *
 * <p><b>Layout of DIR:</b> {@code data/} (the key server's data directory: store, KEK, dev PKI, policy),
 * {@code certs.pem}, {@code ec256.keys}, {@code rsa2048.keys}, and {@value #MARKER}, written last: the key counts,
 * when it was made and how long each step took. A directory without the marker, or with one for other counts, is an
 * interrupted or different creation: its parts are deleted (only those names) and everything is made again.
 */
final class ScaleDataSet {
    static final String MARKER = "complete.properties";
    private static final List<String> PARTS = List.of("data", "certs.pem", "ec256.keys", "rsa2048.keys",
            ".ec256.keys.partial", ".rsa2048.keys.partial", MARKER);

    private final Path directory;
    private final long ecKeys;
    private final long rsaKeys;
    private final Map<String, Double> stepSeconds;
    private final boolean created;
    private final String createdAt;

    private ScaleDataSet(Path directory, long ecKeys, long rsaKeys, Map<String, Double> stepSeconds, boolean created,
                         String createdAt) {
        this.directory = directory;
        this.ecKeys = ecKeys;
        this.rsaKeys = rsaKeys;
        this.stepSeconds = stepSeconds;
        this.created = created;
        this.createdAt = createdAt;
    }

    /**
     * The data set in {@code directory}: the existing one when it is complete and of these counts (and
     * {@code regenerate} is false), else a new one, made with {@code elastikey} and its steps printed to {@code out}.
     */
    static ScaleDataSet ensure(Path elastikey, Path directory, long ecKeys, long rsaKeys, boolean regenerate,
                               PrintStream out) throws IOException, InterruptedException {
        Path marker = directory.resolve(MARKER);
        if (!regenerate && Files.exists(marker)) {
            Properties done = load(marker);
            if (Long.toString(ecKeys).equals(done.getProperty("ec256")) && Long.toString(rsaKeys)
                    .equals(done.getProperty("rsa2048"))) {
                Map<String, Double> steps = new LinkedHashMap<>();
                for (String name : done.stringPropertyNames()) {
                    if (name.startsWith("seconds.")) {
                        steps.put(name.substring("seconds.".length()), Double.parseDouble(done.getProperty(name)));
                    }
                }
                out.printf("data set: %s is complete (%,d ec256 + %,d rsa2048 keys, made %s); reusing it%n",
                        directory, ecKeys, rsaKeys, done.getProperty("created"));
                return new ScaleDataSet(directory, ecKeys, rsaKeys, sorted(steps), false,
                        done.getProperty("created"));
            }
            out.printf("data set: %s was made for other key counts; making it again%n", directory);
        } else if (Files.exists(directory.resolve("data"))) {
            out.printf("data set: %s is incomplete (an interrupted creation?)%s; making it again%n", directory,
                    regenerate ? " or --regenerate was given" : "");
        }
        return create(elastikey, directory, ecKeys, rsaKeys, out);
    }

    private static ScaleDataSet create(Path elastikey, Path directory, long ecKeys, long rsaKeys, PrintStream out)
            throws IOException, InterruptedException {
        for (String part : PARTS) {
            FileTrees.delete(directory.resolve(part));
        }
        Files.createDirectories(directory);
        Path data = directory.resolve("data");
        String expected = "keys.expected=" + (ecKeys + rsaKeys);
        Map<String, Double> steps = new LinkedHashMap<>();
        out.printf("data set: making %,d ec256 and %,d rsa2048 keys in %s (once; later runs reuse it)%n", ecKeys,
                rsaKeys, directory);
        steps.put("generate_ec256", run(out, "generate " + String.format("%,d", ecKeys) + " ec256 keys",
                elastikey.toString(), "keys", "generate", "--data", data.toString(), "--set", expected,
                "--count", Long.toString(ecKeys), "--type", "ec256", "--no-warm-start"));
        steps.put("generate_rsa2048", run(out, "generate " + String.format("%,d", rsaKeys)
                        + " rsa2048 keys (every key distinct: slow, once)",
                elastikey.toString(), "keys", "generate", "--data", data.toString(), "--set", expected,
                "--count", Long.toString(rsaKeys), "--type", "rsa2048", "--first", Long.toString(ecKeys)));
        Path certificates = directory.resolve("certs.pem");
        steps.put("export_public", run(out, "export the certificates", elastikey.toString(), "keys", "export-public",
                "--data", data.toString(), "--set", expected, "--out", certificates.toString()));
        long started = System.nanoTime();
        out.println("data set: convert the certificates into key lists");
        Map<Path, Set<KeyType>> lists = new LinkedHashMap<>();
        lists.put(directory.resolve("ec256.keys"), EnumSet.of(KeyType.EC_P256));
        lists.put(directory.resolve("rsa2048.keys"), EnumSet.of(KeyType.RSA_2048));
        Map<Path, Long> written = KeyListCommand.convert(certificates, lists, out);
        steps.put("key_lists", (System.nanoTime() - started) / 1e9);
        if (written.get(directory.resolve("ec256.keys")) != ecKeys
                || written.get(directory.resolve("rsa2048.keys")) != rsaKeys) {
            throw new IOException("the key lists hold " + written.values() + " keys, expected " + ecKeys + " and "
                    + rsaKeys + ": is " + data + " shared with other keys?");
        }
        out.printf("data set: key lists written (%.1f s)%n", steps.get("key_lists"));

        String createdAt = Instant.now().toString();
        Properties done = new Properties();
        done.setProperty("ec256", Long.toString(ecKeys));
        done.setProperty("rsa2048", Long.toString(rsaKeys));
        done.setProperty("created", createdAt);
        steps.forEach((step, seconds) -> done.setProperty("seconds." + step, String.format("%.1f", seconds)));
        Path partial = directory.resolve(MARKER + ".partial");
        try (OutputStream file = Files.newOutputStream(partial)) {
            done.store(file, "written by ./elastikey bench ski-scale once the data set was complete");
        }
        Files.move(partial, directory.resolve(MARKER), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        return new ScaleDataSet(directory, ecKeys, rsaKeys, steps, true, createdAt);
    }

    /** Runs one {@code ./elastikey} step on this console (its progress bar included); returns its seconds. */
    private static double run(PrintStream out, String what, String... command)
            throws IOException, InterruptedException {
        out.printf("data set: %s: %s%n", what, String.join(" ", command));
        out.flush();
        long started = System.nanoTime();
        int status = new ProcessBuilder(command).inheritIO().start().waitFor();
        double seconds = (System.nanoTime() - started) / 1e9;
        if (status != 0) {
            throw new IOException("'" + String.join(" ", command) + "' failed with status " + status);
        }
        out.printf("data set: %s took %.1f s%n", what, seconds);
        return seconds;
    }

    Path directory() {
        return directory;
    }

    /** The key server's data directory; its dev PKI in {@code pki/} holds the load generator's client certificate. */
    Path dataDirectory() {
        return directory.resolve("data");
    }

    Path pki() {
        return dataDirectory().resolve("pki");
    }

    Path ecKeyList() {
        return directory.resolve("ec256.keys");
    }

    Path rsaKeyList() {
        return directory.resolve("rsa2048.keys");
    }

    long ecKeys() {
        return ecKeys;
    }

    long rsaKeys() {
        return rsaKeys;
    }

    /** The {@code keys.expected} every command on this data directory is given. */
    long expectedKeys() {
        return ecKeys + rsaKeys;
    }

    /** How long each creation step took (when it was made, possibly by an earlier run). */
    Map<String, Double> stepSeconds() {
        return stepSeconds;
    }

    /** Whether this run made it (rather than reusing it). */
    boolean created() {
        return created;
    }

    String createdAt() {
        return createdAt;
    }

    private static Properties load(Path file) throws IOException {
        Properties properties = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            properties.load(in);
        }
        return properties;
    }

    private static Map<String, Double> sorted(Map<String, Double> steps) {
        Map<String, Double> ordered = new LinkedHashMap<>();
        for (String step : List.of("generate_ec256", "generate_rsa2048", "export_public", "key_lists")) {
            if (steps.containsKey(step)) {
                ordered.put(step, steps.get(step));
            }
        }
        return ordered;
    }
}

// SuiteLauncher -- starts the suite's servers the way ./elastikey demo does, each its own process on loopback ports.
package io.elastikey.perf.soak;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.elastikey.perf.skiscale.KeyServerProcess;

/**
 * The command lines of {@code ./elastikey keyserver}, {@code edge}, {@code origin} and {@code store serve}, and of
 * {@code redis-server}, with their logs in the output directory. Every key server gets the ski-scale logback
 * configuration ({@link KeyServerProcess#writeLogbackConfig}): its audit trail (one JSON line per request, a thousand
 * a second under this load) goes to a size-capped rolling file rather than filling its log. Readiness is each
 * server's own "ready" line.
 */
final class SuiteLauncher {
    private static final Duration START_TIMEOUT = Duration.ofMinutes(3);

    private final Path elastikey;
    private final Path outDir;
    private final Path logback;

    SuiteLauncher(Path elastikey, Path outDir) throws IOException {
        this.elastikey = elastikey;
        this.outDir = outDir;
        this.logback = KeyServerProcess.writeLogbackConfig(outDir);
    }

    /**
     * {@code keyserver --dev} on {@code data} (its store from there, or {@code store} when not null), SKI on
     * {@code port}, admin on {@code adminPort}, Keyless off.
     */
    SuiteProcess keyServer(String name, Path data, String store, int port, int adminPort)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(elastikey.toString(), "keyserver", "--dev", "--data",
                data.toString(), "--set", "listen=127.0.0.1:" + port, "--set", "admin.listen=127.0.0.1:" + adminPort,
                "--set", "keyless.listen=off", "--set", "keys.expected=1024", "--set", "store.memory=16m"));
        if (store != null) {
            command.addAll(List.of("--set", "store=" + store));
        }
        return SuiteProcess.start(name, command, Map.of("ELASTIKEY_JAVA_OPTS", "-Dlogback.configurationFile="
                + logback), outDir.resolve(name + ".log")).awaitLog("key server ready", START_TIMEOUT);
    }

    /** {@code edge} on {@code port}, its key servers {@code keyServerPorts}, trusting and presenting {@code pki}. */
    SuiteProcess edge(Path data, Path pki, int port, int adminPort, List<Integer> keyServerPorts, int originPort)
            throws IOException, InterruptedException {
        String keyServers = String.join(",", keyServerPorts.stream().map(p -> "127.0.0.1:" + p).toList());
        List<String> command = List.of(elastikey.toString(), "edge", "--data", data.toString(),
                "--set", "listen=127.0.0.1:" + port, "--set", "admin.listen=127.0.0.1:" + adminPort,
                "--set", "keyservers=" + keyServers, "--set", "origin=http://127.0.0.1:" + originPort,
                "--set", "keyservers.ca=" + pki.resolve("ca.pem"),
                "--set", "keyservers.certificate=" + pki.resolve("client.pem"),
                "--set", "keyservers.key=" + pki.resolve("client.key"));
        return SuiteProcess.start("edge", command, Map.of(), outDir.resolve("edge.log"))
                .awaitLog("edge server ready", START_TIMEOUT);
    }

    SuiteProcess origin(int port) throws IOException, InterruptedException {
        return SuiteProcess.start("origin", List.of(elastikey.toString(), "origin", "--listen", "127.0.0.1:" + port),
                Map.of(), outDir.resolve("origin.log")).awaitLog("sample origin on", START_TIMEOUT);
    }

    /** {@code store serve}: an ElasticStore on {@code data} behind the RESP server on {@code port}. */
    SuiteProcess respStore(Path data, int port, String memory, int indexCapacity)
            throws IOException, InterruptedException {
        List<String> command = List.of(elastikey.toString(), "store", "serve", "--data", data.toString(),
                "--resp", "127.0.0.1:" + port, "--memory", memory, "--index-capacity", Integer.toString(indexCapacity));
        return SuiteProcess.start("store", command, Map.of(), outDir.resolve("store.log"))
                .awaitLog("RESP server ready", START_TIMEOUT);
    }

    /**
     * {@code redis-server} on {@code port} with its files in {@code dir}: append-only file, fsync on every write, so
     * that what it acknowledged survives a SIGKILL.
     */
    SuiteProcess redis(Path dir, int port) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        List<String> command = List.of(redisServer(), "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--dir", dir.toString(), "--appendonly", "yes", "--appendfsync", "always", "--save", "",
                "--daemonize", "no");
        return SuiteProcess.start("redis", command, Map.of(), outDir.resolve("redis.log"))
                .awaitLog("Ready to accept connections", START_TIMEOUT);
    }

    private static String redisServer() throws IOException {
        for (String dir : (System.getenv().getOrDefault("PATH", "") + ":/usr/bin:/usr/local/bin").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "redis-server"))) {
                return Path.of(dir, "redis-server").toString();
            }
        }
        throw new IOException("redis-server is not installed: ./elastikey test installs it (Debian redis-server)");
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}

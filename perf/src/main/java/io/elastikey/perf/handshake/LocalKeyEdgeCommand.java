package io.elastikey.perf.handshake;

import io.elastikey.edge.EdgeServer;
import io.elastikey.edge.config.EdgeConfig;
import io.elastikey.keyserver.config.KeyServerConfig;
import io.elastikey.protocol.config.ConfigOptions;
import io.elastikey.protocol.config.ConfigSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * {@code elastikey edge-local-keys}: the edge server with its private-key operations done in its own process,
 * from the key server's data directory. It exists only as the baseline of the remote-versus-local handshake
 * benchmark (docs/benchmarks.md); holding keys on the edge is what Elastikey is built to avoid.
 */
@Command(name = "edge-local-keys", mixinStandardHelpOptions = true,
        description = {"BENCHMARK ONLY: the edge server with the keys loaded into its own process (from the key "
                + "server's data directory) instead of asking the key server, as the baseline the remote edge is "
                + "measured against. Takes the edge's settings (--data, --config, --set)."})
public final class LocalKeyEdgeCommand implements Callable<Integer> {
    @Mixin
    ConfigOptions options;

    @Option(names = "--keyserver-data", required = true, paramLabel = "DIR",
            description = "The key server's data directory (it must not be running: the key store takes one owner).")
    Path keyServerData;

    @Override
    public Integer call() throws Exception {
        EdgeConfig config = EdgeConfig.from(options.source());
        KeyServerConfig keys = KeyServerConfig.from(new ConfigSource(Map.of("data", keyServerData.toString()),
                Map.of(), null));
        LocalKeyOperations local = new LocalKeyOperations(keys);
        EdgeServer server = EdgeServer.start(config, local);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            local.close();
            stopped.countDown();
        }, "edge-shutdown"));
        System.out.println("edge server WITH LOCAL KEYS (benchmark baseline) ready on " + server.address()
                + " (Ctrl-C stops)");
        stopped.await();
        return 0;
    }
}

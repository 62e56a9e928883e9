package io.elastikey.edge.cli;

import io.elastikey.edge.EdgeServer;
import io.elastikey.edge.config.EdgeConfig;
import io.elastikey.protocol.config.ConfigOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** {@code elastikey edge}: runs the edge server until SIGINT or SIGTERM. */
@Command(name = "edge", mixinStandardHelpOptions = true,
        description = {"Terminate HTTPS (TLS 1.2 and 1.3, HTTP/1.1 and HTTP/2) with certificates whose private keys "
                + "stay in the key server, and serve the origin's content through a cache.",
                "With no configuration: ./elastikey-data, 127.0.0.1:4433, admin on 127.0.0.1:9081, certificates "
                        + "from ./elastikey-data/edge/certs, the key server at 127.0.0.1:8443 with the dev PKI, the "
                        + "origin at http://127.0.0.1:8080. Settings: docs/edge.md."},
        footer = {"", "Examples:",
                "  ./elastikey keys export-public --chain --out-dir elastikey-data/edge/certs",
                "  ./elastikey edge",
                "  ./elastikey edge --set listen=:443 --set keyservers=10.0.0.5:8443,10.0.0.6:8443 "
                        + "--set origin=http://10.0.1.9:8080"})
public final class EdgeCommand implements Callable<Integer> {
    @Mixin
    ConfigOptions options;

    @Option(names = "--protocol", paramLabel = "ski|keyless",
            description = "How the edge talks to its key servers (the keyservers.protocol setting): ski (default) or "
                    + "keyless, Cloudflare's binary protocol; keyservers then name Keyless ports (default "
                    + "127.0.0.1:2407).")
    String protocol;

    @Override
    public Integer call() throws Exception {
        if (protocol != null) {
            options.set("keyservers.protocol", protocol);
        }
        EdgeServer server = EdgeServer.start(EdgeConfig.from(options.source()));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "edge-shutdown"));
        System.out.println("edge server ready on " + server.address() + ", admin on " + server.adminAddress()
                + " (Ctrl-C stops)");
        stopped.await();
        return 0;
    }
}

// SuiteDemo -- `elastikey demo`: key server, sample origin and edge server, then real HTTPS through the edge.
package io.elastikey.launcher.demo;

import io.elastikey.edge.EdgeServer;
import io.elastikey.edge.config.EdgeConfig;
import io.elastikey.edge.origin.SampleOrigin;
import io.elastikey.keyserver.KeyServer;
import io.elastikey.keyserver.config.KeyServerConfig;
import io.elastikey.protocol.config.ConfigSource;
import io.elastikey.protocol.config.FileTrees;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * The suite's main job on one machine: a development PKI, a key server holding an ECDSA and an RSA key, the
 * sample origin, and an edge server that has the certificates but not the keys; then real HTTPS requests
 * through the edge ({@link DemoClient}) showing each handshake's private-key operation happen in the key
 * server, resumption skipping it, and the edge's cache turning a MISS into a HIT.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Start a key server, a sample origin and an edge server on loopback with a development PKI "
                + "and sample keys, then make real HTTPS requests through the edge (JDK client, and curl when "
                + "installed) and show where the private-key operations happen.",
                "With --keep everything stays up until Ctrl-C, with the curl command to try."})
public final class SuiteDemo implements Callable<Integer> {

    @Option(names = "--data", description = "Data directory (default: a temporary directory, deleted at exit).")
    Path data;

    @Option(names = "--keep", description = "Leave the servers running until Ctrl-C.")
    boolean keep;

    @Option(names = "--edge-port", defaultValue = "4433",
            description = "Edge HTTPS port with --keep (default: ${DEFAULT-VALUE}; without --keep a free port).")
    int edgePort;

    @Option(names = "--verbose", description = "Show the servers' INFO logs and the key server's audit lines.")
    boolean verbose;

    private final PrintStream out = System.out;

    @Override
    public Integer call() throws Exception {
        if (!verbose) {
            quietLogs();
        }
        boolean temporary = data == null;
        Path dir = temporary ? Files.createTempDirectory("elastikey-demo") : data.toAbsolutePath();
        DemoSetup setup = DemoSetup.prepare(dir, out);
        String anyPort = "127.0.0.1:0";
        KeyServerConfig keyServerConfig = KeyServerConfig.from(new ConfigSource(Map.of("data", dir.toString(),
                "listen", anyPort, "admin.listen", anyPort, "keyless.listen", anyPort, "keys.expected", "1024",
                "store.memory", "16m",
                "dev", "true"), // the demo's own development PKI, and a policy granting its client every key
                Map.of(), null));
        try (KeyServer keyServer = KeyServer.start(keyServerConfig);
             SampleOrigin origin = SampleOrigin.start(new InetSocketAddress("127.0.0.1", 0));
             EdgeServer edge = EdgeServer.start(EdgeConfig.of(Map.of(
                     "data", dir.toString(),
                     "listen", "127.0.0.1:" + (keep ? edgePort : 0),
                     "admin.listen", keep ? "127.0.0.1:9081" : anyPort,
                     "keyservers", address(keyServer.address()),
                     "origin", "http://" + address(origin.address()),
                     "certificates.default", DemoSetup.DEFAULT_CERTIFICATE,
                     "cache.memory", "16m",
                     "warmup.handshakes", "3s")))) { // the demo shows answers; a benchmark runs `edge`
            out.printf("%n  key server     %s (mutual TLS), admin http://%s/metrics%n", address(keyServer.address()),
                    address(keyServer.adminAddress()));
            out.printf("  sample origin  http://%s%n", address(origin.address()));
            out.printf("  edge server    https://%s, admin http://%s/metrics (certificates only: no private key)%n",
                    address(edge.address()), address(edge.adminAddress()));
            out.printf("  warm-up        %,d handshakes of the edge with itself before it listened (%s)%n%n",
                    edge.warmup().handshakes(), edge.warmup().ending());
            DemoClient client = new DemoClient(setup, edge, keyServer, out);
            client.showHandshakes();
            client.showContent();
            client.showCurl();
            if (keep) {
                waitForInterrupt(setup, edge);
            }
        } finally {
            if (temporary) {
                try {
                    FileTrees.delete(dir);
                } catch (IOException e) {
                    System.err.println("could not remove " + dir + ": " + e.getMessage());
                }
            }
        }
        return 0;
    }

    private void waitForInterrupt(DemoSetup setup, EdgeServer edge) throws InterruptedException {
        out.printf("%nEverything stays up until Ctrl-C. Try:%n  %s%n", DemoClient.curlCommand(setup, edge));
        CountDownLatch stop = new CountDownLatch(1);
        Thread main = Thread.currentThread();
        // The hook lets this thread close the servers and remove the directory before the JVM halts.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stop.countDown();
            try {
                main.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "demo-stop"));
        stop.await();
        out.printf("%nstopping%n");
    }

    /** The demo prints its own account; the servers' INFO lines and audit lines would bury it. */
    private static void quietLogs() {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext logging) {
            logging.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).setLevel(Level.WARN);
            logging.getLogger("elastikey.audit").setLevel(Level.OFF);
        }
    }

    static String address(InetSocketAddress address) {
        return address.getHostString() + ":" + address.getPort();
    }
}

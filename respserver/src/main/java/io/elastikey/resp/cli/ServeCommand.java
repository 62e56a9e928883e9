// ServeCommand -- `elastikey store serve`: an ElasticStore behind a RESP server until SIGTERM, Ctrl-C or SHUTDOWN.
package io.elastikey.resp.cli;

import io.elastikey.protocol.config.SettingPaths;
import io.elastikey.protocol.net.Listeners;
import io.elastikey.resp.RespLimits;
import io.elastikey.resp.RespOptions;
import io.elastikey.resp.RespServer;
import io.elastikey.resp.warmup.RespWarmup;
import io.elastikey.store.elastic.ElasticStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * Opens the store, serves it, and on SIGTERM (or an admin's {@code SHUTDOWN}, which exits the same way) closes the
 * server then the store (a clean checkpoint).
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = "Serve an ElasticStore to redis-cli, redis-benchmark and Redis clients (a RESP2 subset).")
public final class ServeCommand implements Callable<Integer> {
    @Mixin
    StoreOptions store;

    @Option(names = "--resp", defaultValue = "127.0.0.1:6380", description = "HOST:PORT to listen on (default: ${DEFAULT-VALUE}).")
    String listen;

    @Option(names = "--max-connections", defaultValue = "10000", description = "Open connections at most (default: ${DEFAULT-VALUE}).")
    int maxConnections;

    @Option(names = "--idle-timeout", defaultValue = "300", description = "Seconds before an idle connection is closed; 0: never (default: ${DEFAULT-VALUE}).")
    long idleSeconds;

    @Option(names = "--workers", defaultValue = "64",
            description = "Threads running writes other than plain SETs (DEL, SET with options), which park until "
                    + "their fsync (default: ${DEFAULT-VALUE}).")
    int workers;

    @Option(names = "--read-workers", description = "Threads running reads (default: half the CPUs, at least 1; "
            + RespLimits.DISK_READ_THREADS + " when reads past the page cache are on, see --direct-reads).")
    Integer readWorkers;

    @Option(names = "--event-loops", description = "Network threads (default: half the CPUs, at least 1).")
    Integer eventLoops;

    @Option(names = "--warmup", defaultValue = "5", paramLabel = "SECONDS",
            description = "Before it says ready, send SETs and GETs to a throwaway store in DATA/.warmup for at most "
                    + "this long (less once the JIT has compiled their path), so the first clients do not wait for "
                    + "the compiler; 0 skips it (default: ${DEFAULT-VALUE}).")
    int warmupSeconds;

    @Mixin
    SecurityOptions security;

    @Override
    public Integer call() throws Exception {
        InetSocketAddress address = hostPort(listen);
        SettingPaths.requireWritableDirectory("--data", store.config().directory(), "the store's data directory");
        Listeners.probe("--resp", address); // a port in use fails the start now, not after opening and warming up
        // Not on the command's own thread: exiting waits for the shutdown hook, which waits for that command.
        RespOptions options = security.options(store.memoryBytes())
                .shutdown(() -> new Thread(() -> System.exit(0), "resp-shutdown-command").start()).build();
        ElasticStore elastic = ElasticStore.open(store.config());
        RespLimits limits = RespLimits.defaults(elastic.maxValueSize()).withMaxConnections(maxConnections)
                .withIdleTimeout(Duration.ofSeconds(idleSeconds)).withWorkerThreads(workers);
        if (readWorkers != null) {
            limits = limits.withReadThreads(readWorkers);
        } else if (elastic.readsDirect()) {
            limits = limits.withReadThreads(RespLimits.DISK_READ_THREADS);
        }
        limits.validate();
        int loops = eventLoops != null ? eventLoops : RespLimits.halfTheCpus();
        RespWarmup.run(store.config(), loops, Duration.ofSeconds(Math.max(0, warmupSeconds)));
        RespServer server;
        try {
            server = RespServer.start(elastic, address, limits, loops, options);
        } catch (InterruptedException | RuntimeException e) {
            elastic.close();
            throw e;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            elastic.close();
            stopped.countDown();
        }, "resp-shutdown"));
        System.out.printf("RESP server ready on %s:%d (%,d keys, memory budget %s, reads %s, fsync %s, %s, %s)%n",
                server.address().getHostString(), server.address().getPort(), elastic.size(), store.memoryDescription(),
                elastic.readsDirect() ? "past the page cache" : "through the page cache",
                store.fsync, options.tls() != null ? "TLS" : "no TLS",
                options.users().required() ? "AUTH required" : "no AUTH");
        System.out.flush();
        stopped.await();
        return 0;
    }

    static InetSocketAddress hostPort(String s) {
        int colon = s.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("expected HOST:PORT, got '" + s + "'");
        }
        try {
            return new InetSocketAddress(s.substring(0, colon), Integer.parseInt(s.substring(colon + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected HOST:PORT, got '" + s + "'");
        }
    }
}

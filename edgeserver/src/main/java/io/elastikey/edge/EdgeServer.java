package io.elastikey.edge;

import io.elastikey.edge.admin.EdgeMetrics;
import io.elastikey.edge.admin.PurgeRoute;
import io.elastikey.edge.config.EdgeConfig;
import io.elastikey.edge.content.ContentCache;
import io.elastikey.edge.content.ContentHandler;
import io.elastikey.edge.content.OriginClient;
import io.elastikey.edge.content.OriginOptions;
import io.elastikey.edge.http.EdgeInitializer;
import io.elastikey.protocol.net.ProtocolErrorHandler;
import io.elastikey.edge.keyservers.KeyServerPool;
import io.elastikey.edge.tls.CertificateRegistry;
import io.elastikey.edge.tls.EdgeTls;
import io.elastikey.edge.tls.TicketKeySource;
import io.elastikey.edge.tls.KeyOperations;
import io.elastikey.edge.tls.RemoteKeyMethod;
import io.elastikey.edge.warmup.HandshakeWarmup;
import io.elastikey.edge.warmup.WarmupCase;
import io.elastikey.protocol.admin.AdminServer;
import io.elastikey.protocol.net.Listeners;
import io.elastikey.protocol.config.FileWatcher;
import io.elastikey.protocol.net.StartedParts;
import io.elastikey.protocol.net.Transports;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * The edge server, assembled: configuration in, an HTTPS listener and an admin endpoint out. {@link #start}
 * builds the parts in dependency order (event loops, key-server pool, TLS, content, listener, admin) and
 * {@link #close} takes them down in reverse.
 *
 * <p>The edge holds certificates and never a private key: every full handshake's private-key operation goes
 * through {@link KeyOperations}, the key-server pool unless a benchmark passes another.
 */
public final class EdgeServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EdgeServer.class);

    private final EdgeConfig config;
    private final EdgeMetrics metrics = new EdgeMetrics();
    private final StartedParts parts = new StartedParts();
    private List<Channel> listeners = List.of();
    private AdminServer admin;
    private EdgeTls tls;
    private ContentCache cache;
    private volatile boolean ready;
    private HandshakeWarmup.Outcome warmup;

    private EdgeServer(EdgeConfig config) {
        this.config = config;
    }

    /** Starts an edge server whose private-key operations go to the configured key servers. */
    public static EdgeServer start(EdgeConfig config) throws Exception {
        return start(config, null);
    }

    /**
     * Starts an edge server; {@code keyOperations}, when not {@code null}, replaces the key-server pool (the
     * local-key comparison in the benchmarks uses this; nothing in production does).
     */
    public static EdgeServer start(EdgeConfig config, KeyOperations keyOperations) throws Exception {
        EdgeServer server = new EdgeServer(config);
        try {
            server.startParts(keyOperations);
            return server;
        } catch (Exception | Error e) {
            server.close();
            throw e;
        }
    }

    private void startParts(KeyOperations override) throws Exception {
        EdgeStartupChecks.run(config, override == null);
        EventLoopGroup io = Transports.newGroup(config.ioThreads(), true, "edge-io");
        started(() -> io.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly());
        KeyOperations keyOperations = override;
        BooleanSupplier keyServersUp = () -> true;
        TicketKeySource ticketKeys = null;
        if (keyOperations == null) {
            KeyServerPool pool = started(KeyServerPools.open(config, io, metrics));
            keyOperations = pool::execute;
            keyServersUp = pool::anyAvailable;
            ticketKeys = config.fleetTicketKeys() ? pool::ticketKeys : null;
        }
        tls = started(new EdgeTls(config, new RemoteKeyMethod(keyOperations, metrics), ticketKeys));
        FileWatcher watcher = started(new FileWatcher(config.reloadInterval()));
        watcher.watch("certificates in " + config.certificates(),
                () -> CertificateRegistry.files(config.certificates()), tls::reload);

        cache = config.cacheEnabled()
                ? started(ContentCache.openElastic(config.cacheDir(), config.cacheMemory(), config.cacheMaxEntry()))
                : null;
        OriginClient origin = started(new OriginClient(config.originAddress(), OriginOptions.builder()
                .maxConnectionsPerLoop(config.originConnections())
                .responseTimeout(config.originTimeout())
                .maxResponseBytes(config.originMaxBody())
                .build()));
        ProtocolErrorHandler errors = new ProtocolErrorHandler(metrics::protocolError);
        ContentHandler content = new ContentHandler(cache, origin, errors);
        EdgeGauges.bind(metrics, tls, cache);
        if (cache != null) {
            metrics.gauge("elastikey.edge.cache.coalescing.waiting", "Requests waiting now for another request's "
                    + "origin fetch of the same URL", content, ContentHandler::coalescedWaiting);
        }

        // The warm-up's handshakes are counted apart (a registry of their own), not as the clients'.
        warmup = HandshakeWarmup.run(io, new EdgeInitializer(config, tls, new EdgeMetrics(),
                        new ProtocolErrorHandler(kind -> { }), () -> content),
                WarmupCase.of(tls.registry(), config.protocols(), config.ciphers()), config.warmupHandshakes());
        EdgeInitializer clients = new EdgeInitializer(config, tls, metrics, errors, () -> content);
        listeners = Listeners.bindOnEachLoop("listen", config.listen(), io, bootstrap -> bootstrap
                .option(ChannelOption.SO_BACKLOG, 4096)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(clients));
        started(() -> listeners.forEach(listener -> listener.close().syncUninterruptibly()));
        BooleanSupplier keyServers = keyServersUp;
        admin = started(AdminServer.start(config.adminListen(), metrics::scrape,
                () -> ready && keyServers.getAsBoolean(), cache == null ? List.of() : List.of(PurgeRoute.of(cache))));
        ready = true;
        log.info("edge server listening on {} ({}), {} certificate chain(s), key servers {}, origin {}, admin on {}",
                address(), Transports.name(io), tls.registry().size(),
                override == null ? config.keyServers() : "(local keys: benchmark only)", config.origin(),
                admin.address());
    }

    /** Remembers a started part; {@link #close} closes parts in the reverse order of their start. */
    private <T extends AutoCloseable> T started(T part) {
        return parts.add(part);
    }

    /** The HTTPS listener's bound address (the real port when {@code listen} asked for port 0). */
    public InetSocketAddress address() {
        return (InetSocketAddress) listeners.get(0).localAddress();
    }

    public InetSocketAddress adminAddress() {
        return admin.address();
    }

    /**
     * The rotation period of the deployment's ticket key this edge issues tickets under, or {@code Long.MIN_VALUE}
     * while it uses keys of its own (docs/edge.md, "Resumption").
     */
    public long ticketKeyEpoch() {
        return tls.ticketKeyEpoch();
    }

    /** What the start's handshakes with itself did ({@code warmup.handshakes}). */
    public HandshakeWarmup.Outcome warmup() {
        return warmup;
    }

    public EdgeMetrics metrics() {
        return metrics;
    }

    public EdgeConfig config() {
        return config;
    }

    /**
     * Waits (up to 30 s) until the content cache has written every answer queued so far. Stores are asynchronous,
     * so a request repeated at once may still be a MISS; the demo and the tests call this between the two so the
     * second is a HIT. Returns at once when the cache is disabled.
     */
    public void awaitCacheWrites() throws InterruptedException, ExecutionException, TimeoutException {
        if (cache != null) {
            cache.awaitWrites();
        }
    }

    /** Rereads the certificate directory now instead of at the next poll. */
    public void reloadCertificates() throws Exception {
        tls.reload();
    }

    @Override
    public void close() {
        ready = false;
        parts.close();
    }
}

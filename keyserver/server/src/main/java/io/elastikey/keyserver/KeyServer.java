package io.elastikey.keyserver;

import io.elastikey.protocol.admin.AdminServer;
import io.elastikey.keyserver.admin.GovernorMetrics;
import io.elastikey.keyserver.admin.KeyServerMetrics;
import io.elastikey.keyserver.admin.ReloadMetrics;
import io.elastikey.keyserver.audit.AuditLog;
import io.elastikey.keyserver.authz.ClientIdentity;
import io.elastikey.keyserver.authz.LivePolicy;
import io.elastikey.protocol.config.FileWatcher;
import io.elastikey.keyserver.config.KeyServerConfig;
import io.elastikey.keyserver.crypto.CryptoEngine;
import io.elastikey.keyserver.crypto.CryptoEngineConfig;
import io.elastikey.keyserver.crypto.CryptoMetrics;
import io.elastikey.keyserver.crypto.CryptoOperations;
import io.elastikey.keyserver.crypto.CryptoProvider;
import io.elastikey.keyserver.crypto.ProviderChoice;
import io.elastikey.keyserver.governor.ScaleUpClientFactory;
import io.elastikey.keyserver.governor.ScaleUpClients;
import io.elastikey.keyserver.http.KeyServerInitializer;
import io.elastikey.keyserver.keyless.KeylessInitializer;
import io.elastikey.keyserver.audit.ClientProtocol;
import io.elastikey.keyserver.audit.KeyChangeEvent;
import io.elastikey.protocol.net.Listeners;
import io.elastikey.protocol.net.StartedParts;
import io.elastikey.protocol.net.Transports;
import io.elastikey.keyserver.keys.KeyRepository;
import io.elastikey.keyserver.warmup.KeyWarmup;
import io.elastikey.keyserver.warmup.NetworkWarmup;
import io.elastikey.keyserver.warmup.WarmStartFiles;
import io.elastikey.keyserver.cli.KeysCommand;
import io.elastikey.keyserver.control.ControlServer;
import io.elastikey.store.Stores;
import io.elastikey.keyserver.ski.AuditingRequestLog;
import io.elastikey.keyserver.ski.Caller;
import io.elastikey.keyserver.ski.CallerResolver;
import io.elastikey.keyserver.ski.KeySkiService;
import io.elastikey.keyserver.tickets.TicketKeySchedule;
import io.elastikey.keyserver.tickets.TicketKeyService;
import io.elastikey.keyserver.tls.ReloadingSslContext;
import io.elastikey.protocol.config.ConfigException;
import io.elastikey.scaleup.ScaleUpClient;
import io.elastikey.store.elastic.ElasticStore;
import io.elastikey.store.governor.MemoryGovernor;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The key server, assembled: configuration in, a listening SKI endpoint and admin endpoint
 * out. {@link #start} builds every part in dependency order and {@link #close} takes them down
 * in reverse, finishing requests already accepted.
 */
public final class KeyServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(KeyServer.class);

    private final KeyServerConfig config;
    private final ScaleUpClientFactory scaleUpClients;
    private final StartedParts parts = new StartedParts();
    private KeyRepository repository;
    /** The last run's hot keys this run has not reloaded (yet), saved after its own at a stop. */
    private volatile Supplier<List<String>> unreloadedHotKeys = List::of;
    private CryptoProvider provider;
    private Channel channel;
    private Channel keylessChannel;
    private AdminServer admin;
    private ControlServer control;
    private MemoryGovernor governor;
    private volatile boolean ready;

    private KeyServer(KeyServerConfig config, ScaleUpClientFactory scaleUpClients) {
        this.config = config;
        this.scaleUpClients = scaleUpClients;
    }

    /** Starts a key server; on any failure everything already started is closed again. */
    public static KeyServer start(KeyServerConfig config) throws Exception {
        return start(config, ScaleUpClients.discover());
    }

    /**
     * Starts a key server whose memory governor (when {@code store.governor = on}) talks to the scale-up agent
     * through a client from {@code scaleUpClients}.
     */
    public static KeyServer start(KeyServerConfig config, ScaleUpClientFactory scaleUpClients) throws Exception {
        KeyServer server = new KeyServer(config, scaleUpClients);
        try {
            server.startParts();
            return server;
        } catch (Exception | Error e) {
            server.close();
            throw e;
        }
    }

    private void startParts() throws Exception {
        StartupChecks.run(config);
        provider = CryptoProvider.select(ProviderChoice.parse(config.cryptoProvider()), config.nativeP256());
        log.info("crypto provider: {}", provider.description());
        started(provider.startP256Nonces(config.p256Nonces()));
        repository = started(KeyRepository.open(config, provider.keyParser()));
        started(repository.followChanges()); // a shared store's other writers tell what to forget
        WarmStartFiles warmStart = new WarmStartFiles(config.dataDir());
        List<String> lastHotKeys = warmStart.load(repository);
        unreloadedHotKeys = () -> lastHotKeys;
        // closed before the repository: the cache is still whole
        started(() -> warmStart.save(repository, unreloadedHotKeys.get()));
        if (config.storeGovernor()) {
            governor = started(startGovernor());
        }
        LivePolicy policy = new LivePolicy(config.policyFile());
        ReloadingSslContext tls = new ReloadingSslContext(config);
        FileWatcher watcher = started(new FileWatcher(config.reloadInterval()));
        tls.watch(watcher);
        watcher.watch("access policy", List.of(config.policyFile()), policy::reload);
        AuditLog audit = started(AuditLog.start(AuditLog.DEFAULT_CAPACITY));
        ThreadPoolExecutor loaders = new ThreadPoolExecutor(config.keyLoaders(), config.keyLoaders(), 0,
                TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(config.cryptoQueue()), new DefaultThreadFactory("key-loader", true),
                new ThreadPoolExecutor.AbortPolicy());
        started(loaders::shutdown);
        EventLoopGroup acceptors = Transports.newGroup(1, true, "ski-accept");
        EventLoopGroup io = Transports.newGroup(config.ioThreads(), true, "ski-io");
        started(() -> {
            acceptors.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
            io.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        });
        // Closed before the event loops, so operations in flight can still send their answers.
        CryptoEngine engine = started(new CryptoEngine(
                new CryptoOperations(provider, repository.derivedSecret("ski implicit rejection v1")),
                CryptoEngineConfig.defaults().withWorkers(config.cryptoWorkers())
                        .withQueueCapacity(config.cryptoQueue()).withInline(config.p256Inline())));

        KeyServerMetrics metrics = new KeyServerMetrics();
        new CryptoMetrics(engine, provider).bindTo(metrics.registry());
        bindGauges(metrics, audit, tls);
        ReloadMetrics.bind(metrics, policy, tls);
        if (governor != null) {
            GovernorMetrics.bind(metrics, governor);
        }
        KeyWarmup warmup = new KeyWarmup(repository, engine.operation());
        warmup.exercise(lastHotKeys, config.warmupExercise());
        bindWarmupMetrics(metrics, warmup, warmStart);
        KeySkiService service = new KeySkiService(repository, engine, loaders);
        CallerResolver callers = (certificate, remote) -> {
            try {
                ClientIdentity identity = ClientIdentity.of(certificate);
                return new Caller(identity, remote, policy.grantsFor(identity)::permits);
            } catch (CertificateException e) {
                throw new IllegalStateException("unreadable client certificate", e);
            }
        };
        TicketKeyService ticketKeys = new TicketKeyService(new TicketKeySchedule(
                repository.derivedSecret("session ticket keys v1"), config.ticketRotation(), System::currentTimeMillis),
                identity -> policy.current().grantsFor(identity));
        NetworkWarmup.run(config, acceptors, io, service, ticketKeys, () -> warmup.sampleRequests(lastHotKeys),
                config.warmupRequests());
        channel = listen(acceptors, io, "listen", config.listen(), new KeyServerInitializer(config, tls, metrics, callers,
                service, new AuditingRequestLog(metrics, audit, ClientProtocol.SKI), ticketKeys));
        if (config.keylessListen() != null) {
            keylessChannel = listen(acceptors, io, "keyless.listen", config.keylessListen(),
                    new KeylessInitializer(config, tls, metrics, callers, service,
                            new AuditingRequestLog(metrics, audit, ClientProtocol.KEYLESS), ticketKeys));
        }
        admin = started(AdminServer.start(config.adminListen(), metrics::scrape,
                () -> ready && repository.storeAvailable()));
        control = startControl(audit);
        ready = true;
        Runnable stopReload = lastHotKeys.isEmpty() ? warmup.walkStore(repository.count())
                : warmup.reload(lastHotKeys);
        unreloadedHotKeys = warmup::notReloaded;
        started(stopReload::run);
        log.info("key server listening on {} (SKI), {} (Keyless) ({}, {}), admin on {}, control socket {}, {} keys "
                + "in {}, policy {} ({} rules)", address(), keylessChannel == null ? "off" : keylessAddress(),
                Transports.name(io), tls.current().getClass().getSimpleName(), admin.address(),
                control == null ? "off" : control.path(), repository.count(),
                Stores.describe(config.store()), config.policyFile(), policy.current().ruleCount());
    }

    /**
     * The control socket, closed before the repository so that a running import finishes first; null when off. One
     * that was set must bind; the default may not (a data directory too deep for a socket path, or one that another
     * server on a shared Redis store already took), and the server then runs without one and says so. Every key a
     * command there adds, updates or removes gets an audit line naming the user who ran it.
     */
    private ControlServer startControl(AuditLog audit) {
        if (config.controlSocket() == null) {
            return null;
        }
        try {
            return started(ControlServer.start(config.controlSocket(),
                    (operator, arguments, out, err, progress) -> KeysCommand.runInServer(config, repository,
                            (change, keyId) -> audit.recordNow(new KeyChangeEvent(Instant.now(), operator,
                                    config.controlSocket(), change, keyId)),
                            arguments, out, err, progress),
                    this::refusal));
        } catch (IOException e) {
            if (config.controlSocketGiven()) {
                throw new ConfigException("control.socket: " + e.getMessage() + " (set control.socket to another "
                        + "path, or to off)");
            }
            log.warn("no control socket, so keys commands cannot run inside this server: {} (set control.socket to "
                    + "a path that can be bound, or to off)", e.getMessage());
            return null;
        }
    }

    /**
     * Why a keys command meant for {@code clientStore} is refused here, or {@code null}: a command given another
     * store (its own --store or --set store=) must not be run on this one.
     */
    private String refusal(String clientStore) {
        if (sameStore(clientStore, config.store())) {
            return null;
        }
        return "this key server serves the keys in " + Stores.describe(config.store()) + ", not "
                + Stores.describe(clientStore) + "; give the command the server's store, or stop the server";
    }

    private static boolean sameStore(String a, String b) {
        if (a.equals(b)) {
            return true;
        }
        if (Stores.isRedis(a) || Stores.isRedis(b)) {
            return false;
        }
        try { // two spellings of one directory
            return Path.of(a).toRealPath().equals(Path.of(b).toRealPath());
        } catch (IOException e) {
            return false;
        }
    }

    /** Binds one request endpoint on the shared event loops; closed at {@link #close} like every started part. */
    private Channel listen(EventLoopGroup acceptors, EventLoopGroup io, String setting, InetSocketAddress address,
                           ChannelInitializer<SocketChannel> initializer) throws InterruptedException {
        Channel bound = Listeners.bind(setting, address, new ServerBootstrap()
                .group(acceptors, io)
                .channel(Transports.serverChannelFor(io))
                .option(ChannelOption.SO_BACKLOG, 4096)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(initializer));
        started(() -> bound.close().syncUninterruptibly());
        return bound;
    }

    /**
     * The memory governor of the key store, started. Closed before the store: it gives its grant back, and the
     * store frees the memory a moment later.
     */
    private MemoryGovernor startGovernor() {
        if (!(repository.store() instanceof ElasticStore store)) {
            throw new ConfigException("store.governor = on needs the ElasticStore key store");
        }
        ScaleUpClient client = scaleUpClients.create(config.scaleupSocket(), config.scaleupClient(),
                config.scaleupTimeout());
        return new MemoryGovernor(store, client, config.governorConfig()).start();
    }

    /** The memory governor, or {@code null} when {@code store.governor} is off. */
    public MemoryGovernor governor() {
        return governor;
    }

    /** Remembers a started part; {@link #close} closes parts in the reverse order of their start. */
    private <T extends AutoCloseable> T started(T part) {
        return parts.add(part);
    }

    private void bindGauges(KeyServerMetrics metrics, AuditLog audit, ReloadingSslContext tls) {
        metrics.gauge("elastikey.keys.stored", "Keys in the repository", repository, KeyRepository::count);
        bindCacheMetrics(metrics);
        metrics.gauge("elastikey.store.entries", "Entries in the key store", repository,
                r -> r.storeStats().entries());
        metrics.gauge("elastikey.store.memory.bytes", "Bytes of the key store in its memory tier", repository,
                r -> r.storeStats().memoryBytes());
        metrics.gauge("elastikey.store.memory.budget.bytes",
                "Budget of the key store's memory tier (store.memory, or as the governor set it)", repository,
                r -> r.storeStats().memoryBudgetBytes());
        metrics.gauge("elastikey.store.hit.ratio", "Key store lookups answered from memory", repository,
                r -> r.storeStats().hitRatio());
        metrics.counter("elastikey.audit.written", "Audit lines written", audit, AuditLog::written);
        metrics.counter("elastikey.audit.dropped", "Audit lines dropped because the queue was full", audit,
                AuditLog::dropped);
        metrics.counter("elastikey.tls.reloads", "TLS context rebuilds after file changes", tls,
                ReloadingSslContext::generation);
    }

    private static void bindWarmupMetrics(KeyServerMetrics metrics, KeyWarmup warmup, WarmStartFiles warmStart) {
        metrics.gauge("elastikey.keys.snapshot.loaded",
                "Keys this start read back from the sealed cache snapshot of the last stop", warmStart,
                WarmStartFiles::snapshotKeys);
        metrics.gauge("elastikey.keys.reload.loaded",
                "Hot keys of the last run loaded again since start (with no hot-key file: stored keys walked)", warmup,
                KeyWarmup::reloaded);
        metrics.gauge("elastikey.keys.reload.planned",
                "Hot keys of the last run this start loads again (with no hot-key file: stored keys to walk)", warmup,
                KeyWarmup::toReload);
    }

    private void bindCacheMetrics(KeyServerMetrics metrics) {
        metrics.gauge("elastikey.keys.cache.hit.ratio", "Hit ratio of the parsed-key cache since start", repository,
                r -> r.cacheStats().hitRatio());
        metrics.counter("elastikey.keys.cache.hits", "Key lookups answered by the parsed-key cache", repository,
                r -> r.cacheStats().hits());
        metrics.counter("elastikey.keys.cache.misses", "Key lookups that read the store (and unsealed and parsed)",
                repository, r -> r.cacheStats().misses());
        metrics.counter("elastikey.keys.cache.evictions", "Parsed keys dropped to stay within keys.cache",
                repository, r -> r.cacheStats().evictions());
        metrics.counter("elastikey.keys.cache.not.admitted", "Misses answered without caching the key: the cache "
                + "was full, and only one EC or Ed25519 miss in eight is offered a place", repository,
                r -> r.cacheStats().notAdmitted());
        metrics.gauge("elastikey.keys.cache.entries", "Parsed keys held", repository, r -> r.cacheStats().entries());
        metrics.gauge("elastikey.keys.cache.names", "Certificate SHA-1s and Subject Key Identifiers held for the "
                + "cached keys, each pointing at its key ID", repository, r -> r.cacheStats().names());
        metrics.gauge("elastikey.keys.cache.bytes", "Estimated memory of the parsed keys held, heap and native",
                repository, r -> r.cacheStats().bytes());
        metrics.gauge("elastikey.keys.cache.capacity.bytes", "The parsed-key cache's bound (keys.cache)", repository,
                r -> r.cacheStats().capacityBytes());
    }

    /** The SKI endpoint's bound address (the real port when {@code listen} asked for port 0). */
    public InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    /** The Keyless endpoint's bound address, or {@code null} when {@code keyless.listen = off}. */
    public InetSocketAddress keylessAddress() {
        return keylessChannel == null ? null : (InetSocketAddress) keylessChannel.localAddress();
    }

    public InetSocketAddress adminAddress() {
        return admin.address();
    }

    public KeyServerConfig config() {
        return config;
    }

    @Override
    public void close() {
        ready = false;
        parts.close();
    }
}

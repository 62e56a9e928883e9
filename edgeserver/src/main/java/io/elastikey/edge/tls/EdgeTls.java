package io.elastikey.edge.tls;

import io.elastikey.edge.config.EdgeConfig;
import io.elastikey.protocol.config.ConfigException;
import io.elastikey.protocol.tickets.TicketKeySet;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.OpenSslCachingX509KeyManagerFactory;
import io.netty.handler.ssl.OpenSslContextOption;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.KeyManagerFactoryWrapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The edge's TLS context, rebuilt whenever the certificate directory changes, with session tickets that
 * survive the rebuild. New connections take {@link #context()}; open ones keep the context they started
 * with.
 *
 * <p>Only BoringSSL (netty-tcnative) can run a handshake whose private-key operation happens elsewhere, so
 * the edge refuses to start without it rather than fall back to the JDK's engine.
 */
public final class EdgeTls implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EdgeTls.class);
    /**
     * Chains kept in BoringSSL's form between handshakes, at the most (Netty's cache keeps the first so many it
     * meets and never evicts). Each is a native copy of the chain, so a directory of a million certificates must
     * not mean a million of them; a chain beyond the cache is converted again for each handshake.
     */
    private static final int CACHED_CHAINS = 1 << 16;

    private final EdgeConfig config;
    private final RemoteKeyMethod keyMethod;
    private final TicketKeys tickets = new TicketKeys();
    private final ScheduledExecutorService rotation;
    private volatile SslContext context;
    private volatile CertificateRegistry registry;

    /** An edge TLS context with ticket keys of its own (tickets resume only on this edge). */
    public EdgeTls(EdgeConfig config, RemoteKeyMethod keyMethod) throws IOException {
        this(config, keyMethod, null);
    }

    /**
     * An edge TLS context whose ticket keys are the deployment's, from {@code ticketKeys} (see
     * {@link TicketKeyRefresh}); {@code null}: keys of its own, rotated every {@code tls.tickets.rotate}.
     */
    public EdgeTls(EdgeConfig config, RemoteKeyMethod keyMethod, TicketKeySource ticketKeys) throws IOException {
        if (!OpenSsl.isAvailable()) {
            throw new ConfigException("the edge needs netty-tcnative (BoringSSL) for remote private-key operations, "
                    + "and it does not load here: " + OpenSsl.unavailabilityCause());
        }
        this.config = config;
        this.keyMethod = keyMethod;
        reload();
        long period = config.ticketRotation().toMillis();
        rotation = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "edge-ticket-rotation");
            t.setDaemon(true);
            return t;
        });
        if (ticketKeys == null) {
            rotation.scheduleAtFixedRate(this::rotateTickets, period, period, TimeUnit.MILLISECONDS);
        } else {
            new TicketKeyRefresh(ticketKeys, this::installTicketKeys, this::rotateTickets, rotation,
                    config.ticketRotation(), System::currentTimeMillis).start();
        }
    }

    /** The context for a new connection. */
    public SslContext context() {
        return context;
    }

    /** Where handshakes send their private-key operation. */
    public RemoteKeyMethod keyMethod() {
        return keyMethod;
    }

    /** The certificates the current context serves. */
    public CertificateRegistry registry() {
        return registry;
    }

    /**
     * Rereads the certificate directory (the files that changed since the last read) and swaps in a new context; on
     * failure the old one stays.
     */
    public synchronized void reload() throws IOException {
        CertificateRegistry next = registry == null
                ? CertificateRegistry.load(config.certificates(), config.defaultCertificate())
                : CertificateRegistry.reload(config.certificates(), config.defaultCertificate(), registry);
        SslContext built = build(next);
        tickets.applyTo(built);
        registry = next;
        context = built;
        log.info("serving {} certificate chain(s) from {} ({} file(s) read{})", next.size(), config.certificates(),
                next.filesRead(), next.rejected() == 0 ? "" : ", " + next.rejected() + " skipped, see above");
    }

    /** Makes the deployment's keys this edge's ticket keys. */
    synchronized void installTicketKeys(TicketKeySet set) {
        tickets.install(set);
        tickets.applyTo(context);
    }

    /** The rotation period of the deployment's primary ticket key in use; {@code Long.MIN_VALUE} for keys of its own. */
    public long ticketKeyEpoch() {
        return tickets.fleetEpoch();
    }

    /** Starts a new ticket key; tickets under the previous one still resume until the next rotation. */
    public synchronized void rotateTickets() {
        tickets.rotate();
        tickets.applyTo(context);
    }

    private SslContext build(CertificateRegistry certificates) throws IOException {
        // Caching the parsed chain per alias saves BoringSSL a PEM round trip per handshake; aliases are
        // certificate hashes, so a changed file never meets a stale entry.
        OpenSslCachingX509KeyManagerFactory keyManagers = new OpenSslCachingX509KeyManagerFactory(
                new KeyManagerFactoryWrapper(new SniKeyManager(certificates)), CACHED_CHAINS);
        try {
            return SslContextBuilder.forServer(keyManagers)
                    .sslProvider(SslProvider.OPENSSL)
                    .option(OpenSslContextOption.ASYNC_PRIVATE_KEY_METHOD, keyMethod)
                    .protocols(config.protocols().toArray(String[]::new))
                    .ciphers(config.ciphers())
                    .sessionTimeout(config.ticketRotation().toSeconds())
                    .applicationProtocolConfig(new ApplicationProtocolConfig(
                            ApplicationProtocolConfig.Protocol.ALPN,
                            ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                            ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                            ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1))
                    .build();
        } catch (javax.net.ssl.SSLException e) {
            throw new IOException("cannot build the TLS context: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        rotation.shutdownNow();
    }
}

// NetworkWarmup -- before a start reports ready, SKI requests to itself over loopback TLS through the real pipeline.
package io.elastikey.keyserver.warmup;

import io.elastikey.keyserver.admin.KeyServerMetrics;
import io.elastikey.keyserver.authz.ClientIdentity;
import io.elastikey.keyserver.config.KeyServerConfig;
import io.elastikey.keyserver.http.KeyServerInitializer;
import io.elastikey.keyserver.ski.Caller;
import io.elastikey.keyserver.ski.CallerResolver;
import io.elastikey.keyserver.ski.RequestLog;
import io.elastikey.keyserver.ski.SkiService;
import io.elastikey.keyserver.tickets.TicketKeyService;
import io.elastikey.keyserver.tls.ReloadingSslContext;
import io.elastikey.keyserver.tls.ServerTlsContexts;
import io.elastikey.protocol.net.Transports;
import io.elastikey.protocol.pki.CertificateAuthority;
import io.elastikey.protocol.pki.IssuedCertificate;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.Validity;
import io.elastikey.protocol.ski.SkiClient;
import io.elastikey.protocol.ski.SkiClientOptions;
import io.elastikey.protocol.ski.SkiHttpVersion;
import io.elastikey.protocol.ski.SkiRequest;
import io.elastikey.protocol.ski.SkiTls;
import io.elastikey.protocol.warmup.CompilerActivity;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.cert.CertificateException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The part of a request's path {@link KeyWarmup#exercise} cannot reach: TLS records, HTTP/2 frames and HTTP/1.1
 * messages, JSON, the SKI handler and the hand-off to the crypto engine. A restarted server whose cache was full at
 * once still answered 384 requests in its first second under load and reached its warm rate some 20 s after it was
 * ready, while C2 compiled that path under the clients' requests (docs/benchmarks.md). So before {@code /readyz}
 * turns ready, the server sends itself SKI requests for {@code warmup.requests}, over HTTP/2 and then over
 * HTTP/1.1, each part ending early once the JIT has gone quiet ({@link CompilerActivity}): past that point more
 * requests compile nothing, so a fast machine is ready sooner. Here the short default ends on its time, with C2 still
 * compiling; run until quiet (some 25 s on 2 vCPUs) a start was ready 20 s later and at its full rate no sooner
 * after the process start (docs/benchmarks.md, "2 Dec 2026: the requests to itself").
 *
 * <p>They go to a listener of their own on a loopback port, on the server's event loops and with its pipeline
 * ({@link KeyServerInitializer}), crypto engine and keys, but over a throwaway PKI made in memory for this start:
 * the server holds no client certificate its own clients' CA would accept, and needs none. The warm-up client may use
 * the few keys it asks for; the requests are not in the audit trail or the request metrics (a throwaway registry),
 * but their signatures are counted with the crypto engine's and their lookups with the cache's. The listener is
 * closed before the real ones open.
 */
public final class NetworkWarmup {
    private static final Logger log = LoggerFactory.getLogger(NetworkWarmup.class);
    private static final int IN_FLIGHT = 128;
    private static final RequestLog NOT_LOGGED = (caller, method, spki, error, nanos) -> { };

    private NetworkWarmup() {
    }

    /**
     * Sends the requests of {@code sample} (asked for only when there is a budget) round-robin, over each HTTP
     * version until the JIT is quiet, within {@code budget} in all (HTTP/2 at most half of it), and returns how many
     * were answered. Never throws: a warm-up that cannot run costs only the warm-up.
     */
    public static long run(KeyServerConfig config, EventLoopGroup acceptors, EventLoopGroup io, SkiService service,
                           TicketKeyService ticketKeys, Supplier<List<SkiRequest>> sample, Duration budget) {
        List<SkiRequest> requests = budget.isZero() ? List.of() : sample.get();
        if (requests.isEmpty()) {
            return 0;
        }
        long start = System.nanoTime();
        Channel listener = null;
        SslContext serverContext = null;
        try {
            CertificateAuthority ca = CertificateAuthority.create("elastikey start-up warm-up", KeyType.EC_P256,
                    Validity.days(1));
            IssuedCertificate server = ca.issueServer("localhost", List.of("localhost", "127.0.0.1"),
                    KeyType.EC_P256, Validity.days(1));
            IssuedCertificate client = ca.issueClient("elastikey warm-up", List.of(), KeyType.EC_P256,
                    Validity.days(1));
            serverContext = ServerTlsContexts.build(server.privateKey(), server.chain(), List.of(ca.certificate()),
                    config.tlsProvider());
            CallerResolver everyKey = (certificate, remote) -> {
                try {
                    return new Caller(ClientIdentity.of(certificate), remote, (keyId, tags, names) -> true);
                } catch (CertificateException e) {
                    throw new IllegalStateException("the warm-up's own client certificate does not read", e);
                }
            };
            listener = new ServerBootstrap().group(acceptors, io).channel(Transports.serverChannelFor(io))
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new KeyServerInitializer(config, ReloadingSslContext.fixed(serverContext),
                            new KeyServerMetrics(), everyKey, service, NOT_LOGGED, ticketKeys))
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
            InetSocketAddress address = (InetSocketAddress) listener.localAddress();
            long deadline = start + budget.toNanos();
            long half = start + budget.toNanos() / 2;
            long answered = 0;
            long compiling = CompilerActivity.millisSoFar();
            for (SkiHttpVersion version : List.of(SkiHttpVersion.HTTP_2, SkiHttpVersion.HTTP_1_1)) {
                SslContext clientContext = SkiTls.clientContext(client.chain(), client.privateKey(),
                        List.of(ca.certificate()), version, SkiTls.defaultProvider());
                try {
                    answered += send(clientContext, address, version, requests,
                            version == SkiHttpVersion.HTTP_2 ? half : deadline);
                } finally {
                    ReferenceCountUtil.release(clientContext);
                }
            }
            log.info("warm-up: {} SKI requests to itself over loopback TLS (HTTP/2 and HTTP/1.1) in {} ms, the JIT "
                    + "compiling for {} ms of it", answered, (System.nanoTime() - start) / 1_000_000,
                    CompilerActivity.millisSoFar() - compiling);
            return answered;
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            log.warn("warm-up requests stopped: {}", e.toString());
            return 0;
        } finally {
            if (listener != null) {
                listener.close().syncUninterruptibly();
            }
            ReferenceCountUtil.release(serverContext);
        }
    }

    /**
     * Keeps {@value #IN_FLIGHT} requests in flight on one client until {@code until} or until the JIT is quiet,
     * whichever comes first.
     */
    private static long send(SslContext context, InetSocketAddress address, SkiHttpVersion version,
                             List<SkiRequest> requests, long until) throws InterruptedException {
        SkiClientOptions options = SkiClientOptions.builder().httpVersion(version)
                .connections(version == SkiHttpVersion.HTTP_2 ? 4 : 16).eventLoopThreads(1)
                .requestTimeout(Duration.ofSeconds(10)).serverName("localhost").build();
        Semaphore window = new Semaphore(IN_FLIGHT);
        AtomicLong answered = new AtomicLong();
        AtomicReference<Throwable> firstFailure = new AtomicReference<>();
        long started = System.nanoTime();
        boolean quiet = false;
        try (SkiClient client = SkiClient.create(context, address, options)) {
            client.connect().join();
            CompilerActivity compiler = new CompilerActivity(started);
            for (int i = 0; System.nanoTime() - until < 0; i++) {
                if (compiler.quiet(System.nanoTime())) {
                    quiet = true;
                    break;
                }
                window.acquire();
                client.execute(requests.get(i % requests.size())).whenComplete((output, failure) -> {
                    if (failure == null) {
                        answered.incrementAndGet();
                    } else {
                        firstFailure.compareAndSet(null, failure);
                    }
                    window.release();
                });
            }
            window.tryAcquire(IN_FLIGHT, 10, TimeUnit.SECONDS); // the last ones answered before the client closes
        }
        log.info("warm-up over HTTP/{}: {} requests in {} ms, {}", version.label(), answered.get(),
                (System.nanoTime() - started) / 1_000_000,
                quiet ? "until the JIT was quiet" : "the JIT still compiling when its time was up");
        if (firstFailure.get() != null) {
            log.warn("warm-up requests over HTTP/{} failed, the first with {}", version.label(),
                    firstFailure.get().toString());
        }
        return answered.get();
    }
}

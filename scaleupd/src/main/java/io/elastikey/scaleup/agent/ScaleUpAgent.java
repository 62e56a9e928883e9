// ScaleUpAgent -- scaleupd: lends a memory pool to named clients over a Unix socket, one decision at a time.
package io.elastikey.scaleup.agent;

import io.elastikey.scaleup.agent.actuate.Actuator;
import io.elastikey.scaleup.agent.actuate.CgroupActuator;
import io.elastikey.scaleup.agent.actuate.ClientCgroupActuator;
import io.elastikey.scaleup.agent.actuate.LedgerActuator;
import io.elastikey.scaleup.agent.ledger.Ledger;
import io.elastikey.scaleup.agent.net.AgentInitializer;
import io.elastikey.scaleup.agent.net.SocketFile;
import io.elastikey.scaleup.agent.pool.MemoryPool;
import io.elastikey.scaleup.agent.pool.PoolSnapshot;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutorGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The scale-up agent. It owns a pool of memory (MiB) that named clients borrow from with the JSON-lines protocol
 * of PROTOCOLS.md section 3, keeps every grant in a ledger file that survives restarts, and makes grants real
 * through an {@link Actuator} (accounting only, or the caller's cgroup memory limit).
 *
 * <p>Design. Netty's epoll transport serves the Unix socket because only it gives the peer's PID
 * ({@code SO_PEERCRED}), which the cgroup actuator needs; the JDK's Unix channels do not. I/O runs on one event loop
 * thread; decisions run on one more thread, so they are serialized by construction (concurrent clients cannot
 * over-commit the pool) and the ledger write and the hot-plug delay never block I/O. The pipeline is one handler per
 * step ({@link AgentInitializer} lists them). The rules of lending are in {@link MemoryPool}, the file format in
 * {@link Ledger}.
 *
 * <p>Startup fails with a clear message on a corrupt ledger, a live agent on the socket or a bad configuration; it
 * warns (and carries on, denying grows) when restored grants exceed a pool configured smaller than before.
 */
public final class ScaleUpAgent implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ScaleUpAgent.class);

    private final AgentConfig config;
    private final MemoryPool pool;
    private final SocketFile socketFile;
    private final EpollEventLoopGroup loop;
    private final EventExecutorGroup decider;
    private final Channel server;
    private final AgentInitializer initializer;
    private final List<String> startupWarnings;
    private final String actuatorName;
    private final AtomicBoolean closed = new AtomicBoolean();

    private ScaleUpAgent(AgentConfig config, MemoryPool pool, SocketFile socketFile, EpollEventLoopGroup loop,
                         EventExecutorGroup decider, Channel server, AgentInitializer initializer,
                         List<String> startupWarnings, String actuatorName) {
        this.config = config;
        this.pool = pool;
        this.socketFile = socketFile;
        this.loop = loop;
        this.decider = decider;
        this.server = server;
        this.initializer = initializer;
        this.startupWarnings = List.copyOf(startupWarnings);
        this.actuatorName = actuatorName;
    }

    /** Restores the ledger, binds the socket and serves until {@link #close()}. */
    public static ScaleUpAgent start(AgentConfig config) throws IOException {
        if (!Epoll.isAvailable()) {
            throw new IllegalStateException("scaleupd needs Netty's epoll transport (Linux x86_64 or aarch64): "
                    + Epoll.unavailabilityCause());
        }
        Ledger ledger = new Ledger(config.ledgerFile(), config.ledgerSync());
        Ledger.Contents restored = ledger.readAll();
        MemoryPool pool = new MemoryPool(config.poolMb(), config.clients().values(), restored.grants(),
                restored.owners());
        List<String> warnings = restoreReport(config, pool.snapshot(), pool.owners(), ledger);
        Actuator actuator = switch (config.actuator()) {
            case LEDGER -> new LedgerActuator();
            case CGROUP -> config.cgroupParent() != null
                    ? ClientCgroupActuator.open(config.cgroupParent(), config.cgroupBaseMb())
                    : new CgroupActuator(config.cgroupRoot(), config.procRoot(), config.cgroupBaseMb());
        };
        SocketFile socketFile = new SocketFile(config.socketPath());
        socketFile.prepare();
        EpollEventLoopGroup loop = new EpollEventLoopGroup(1, new DefaultThreadFactory("scaleupd-io", true));
        EventExecutorGroup decider = new DefaultEventExecutorGroup(1,
                new DefaultThreadFactory("scaleupd-decider", true));
        AgentInitializer initializer = new AgentInitializer(config, pool, ledger, actuator, decider);
        try {
            Channel server = new ServerBootstrap().group(loop)
                    .channel(EpollServerDomainSocketChannel.class)
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .childHandler(initializer)
                    .bind(new DomainSocketAddress(config.socketPath().toFile())).sync().channel();
            socketFile.bound();
            ScaleUpAgent agent = new ScaleUpAgent(config, pool, socketFile, loop, decider, server, initializer,
                    warnings, actuator.name());
            log.info("scaleupd listening on {}: pool {} MiB ({} MiB free), {} client(s) configured{}, actuator {}, "
                            + "ledger {}", config.socketPath(), config.poolMb(), pool.snapshot().freeMb(),
                    config.clients().size(), config.knownClientsOnly() ? " (known clients only)" : "",
                    actuator.describe(), ledger.file());
            return agent;
        } catch (IOException | RuntimeException | InterruptedException e) {
            loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            decider.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            socketFile.remove();
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new IOException("cannot listen on " + config.socketPath() + ": " + e.getMessage(), e);
        }
    }

    private static List<String> restoreReport(AgentConfig config, PoolSnapshot restored,
                                              Map<String, ?> owners, Ledger ledger) {
        List<String> warnings = new ArrayList<>();
        if (!restored.grants().isEmpty()) {
            log.info("restored {} grant(s) from {}: {}", restored.grants().size(), ledger.file(), restored.grants());
        }
        if (restored.overCommitMb() > 0) {
            warnings.add("the pool (" + config.poolMb() + " MiB) is smaller than what the ledger's grants and the "
                    + "minimums commit (" + restored.committedMb() + " MiB): over-committed by "
                    + restored.overCommitMb() + " MiB; every grow is denied until clients shrink or release");
        }
        restored.grants().forEach((name, mb) -> {
            if (!owners.containsKey(name)) {
                warnings.add("client " + name + " holds " + mb + " MiB from a version-1 ledger, which records no "
                        + "owner: only root may rescale or release it (as root: scaleup release " + name + ")");
            }
            ClientLimits limits = config.limitsFor(name);
            if (limits == null) {
                warnings.add("client " + name + " holds " + mb + " MiB from the ledger but is not configured "
                        + "(--known-clients-only); it keeps the grant until it releases it");
            } else if (mb > limits.maxMb()) {
                warnings.add("client " + name + " holds " + mb + " MiB from the ledger, above its max of "
                        + limits.maxMb() + " MiB; it keeps the grant until it shrinks");
            }
        });
        warnings.forEach(w -> log.warn("{}", w));
        return warnings;
    }

    /** Where the agent listens. */
    public Path socketPath() {
        return config.socketPath();
    }

    public AgentConfig config() {
        return config;
    }

    /** The pool's accounting now. */
    public PoolSnapshot pool() {
        return pool.snapshot();
    }

    /** The restore problems reported at startup (a shrunk pool, grants above a max); empty normally. */
    public List<String> startupWarnings() {
        return startupWarnings;
    }

    /** {@code ledger} or {@code cgroup}. */
    public String actuatorName() {
        return actuatorName;
    }

    /** Connections open now. */
    public int openConnections() {
        return initializer.openConnections();
    }

    /** Stops listening, closes every connection and removes the socket file. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        server.close().syncUninterruptibly();
        loop.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        decider.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        socketFile.remove();
    }
}

// RedisConnections -- the Lettuce client and connections behind one RedisStore, for standalone, Sentinel and Cluster.
package io.elastikey.store.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Opens and owns what a {@link RedisStore} talks through: a client on its own small event-loop pool, one shared
 * connection (Lettuce connections are thread-safe and multiplexed) and, made on first use, a second connection
 * that {@code putAll} fills without flushing after each command (standalone and Sentinel; on a Cluster each command
 * is written at once, still without waiting for the previous answer).
 *
 * <p>Every connection rejects commands while disconnected ({@code REJECT_COMMANDS}) and times out each command
 * after the command timeout, so a Redis that is down costs a caller at most that long, never a hang; the client
 * reconnects in the background with a delay growing from 50 ms to 2 s. A Sentinel URI makes Lettuce ask the
 * Sentinels for the master at connect and reconnect; a Cluster client keeps its slot map fresh (every 30 s and on
 * MOVED/ASK redirects or reconnects) and routes each key to its master.
 */
final class RedisConnections implements AutoCloseable {
    private final ClientResources resources;
    private final AbstractRedisClient client;
    private final List<RedisURI> nodes;
    private final StatefulConnection<byte[], byte[]> main;
    private final Duration connectTimeout;
    private StatefulConnection<byte[], byte[]> batch;
    private final List<StatefulConnection<byte[], byte[]>> owned = new CopyOnWriteArrayList<>();

    RedisConnections(RedisStoreConfig config) {
        this.nodes = config.uri().nodes();
        this.connectTimeout = config.connectTimeout();
        for (RedisURI node : nodes) {
            node.setTimeout(config.commandTimeout());
        }
        this.resources = DefaultClientResources.builder()
                .ioThreadPoolSize(2)
                .computationThreadPoolSize(2)
                .reconnectDelay(Delay.exponential(Duration.ofMillis(50), Duration.ofSeconds(2), 2,
                        TimeUnit.MILLISECONDS))
                .build();
        AbstractRedisClient opened = null;
        try {
            if (config.uri().mode() == RedisUri.Mode.CLUSTER) {
                RedisClusterClient cluster = RedisClusterClient.create(resources, nodes);
                opened = cluster;
                cluster.setOptions(ClusterClientOptions.builder(clientOptions(config))
                        .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                                .enablePeriodicRefresh(Duration.ofSeconds(30))
                                .enableAllAdaptiveRefreshTriggers()
                                .build())
                        .build());
                this.main = connectMasters(cluster.connect(ByteArrayCodec.INSTANCE), config.connectTimeout());
            } else {
                RedisClient standalone = RedisClient.create(resources);
                opened = standalone;
                standalone.setOptions(clientOptions(config));
                this.main = standalone.connect(ByteArrayCodec.INSTANCE, nodes.get(0));
            }
            this.client = opened;
        } catch (RuntimeException e) {
            if (opened != null) {
                opened.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
            resources.shutdown(0, 2, TimeUnit.SECONDS);
            throw e;
        }
    }

    /**
     * Opens the connection to every master now rather than on its first command. Lettuce opens node connections
     * lazily, and a first batch then pays for three connects inside its command timeout; a loaded machine made that
     * exceed it. Best effort: a master that does not answer within the connect timeout is left to the lazy path,
     * whose commands then fail with the usual clear error.
     */
    private static StatefulRedisClusterConnection<byte[], byte[]> connectMasters(
            StatefulRedisClusterConnection<byte[], byte[]> connection, Duration connectTimeout) {
        List<CompletableFuture<?>> connects = new ArrayList<>();
        for (RedisClusterNode node : connection.getPartitions()) {
            if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
                connects.add(connection.getConnectionAsync(node.getNodeId()));
            }
        }
        try {
            CompletableFuture.allOf(connects.toArray(new CompletableFuture<?>[0]))
                    .get(connectTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // left to the lazy path, see above
        }
        return connection;
    }

    private static ClientOptions clientOptions(RedisStoreConfig config) {
        ClientOptions.Builder options = ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(config.commandTimeout()))
                .socketOptions(SocketOptions.builder().connectTimeout(config.connectTimeout()).keepAlive(true).build());
        if (config.uri().tls()) {
            SslOptions.Builder ssl = SslOptions.builder().jdkSslProvider();
            if (config.caFile() != null) {
                ssl.trustManager(config.caFile().toFile());
            }
            if (config.certificateFile() != null) {
                ssl.keyManager(config.certificateFile().toFile(), config.keyFile().toFile(), null);
            }
            options.sslOptions(ssl.build());
        }
        return options.build();
    }

    /** Blocking commands on the shared connection. */
    @SuppressWarnings("unchecked")
    RedisClusterCommands<byte[], byte[]> sync() {
        return main instanceof StatefulRedisClusterConnection<?, ?> cluster
                ? ((StatefulRedisClusterConnection<byte[], byte[]>) cluster).sync()
                : ((StatefulRedisConnection<byte[], byte[]>) main).sync();
    }

    /** Asynchronous commands on the shared connection. */
    RedisClusterAsyncCommands<byte[], byte[]> async() {
        return async(main);
    }

    /** Whether the shared connection is connected right now (no I/O). */
    boolean isConnected() {
        return main.isOpen();
    }

    /**
     * The connection reserved for batches: commands written to it stay buffered until {@link #flushBatch()}.
     * Callers serialize their use of it.
     */
    @SuppressWarnings("unchecked")
    RedisClusterAsyncCommands<byte[], byte[]> batch() {
        if (batch == null) {
            batch = client instanceof RedisClusterClient cluster
                    ? connectMasters(cluster.connect(ByteArrayCodec.INSTANCE), connectTimeout)
                    : ((RedisClient) client).connect(ByteArrayCodec.INSTANCE, nodes.get(0));
            // A Cluster connection opens node connections lazily, and commands queued for a node not yet connected
            // when flushCommands runs would wait forever: there, batches are pipelined with per-command writes
            // (auto-flush on). Elsewhere they stay buffered until flushBatch (auto-flush off).
            batch.setAutoFlushCommands(client instanceof RedisClusterClient);
        }
        return async(batch);
    }

    void flushBatch() {
        batch.flushCommands();
    }

    /** The {@code INFO memory} text of the server, or of every Cluster master. */
    @SuppressWarnings("unchecked")
    List<String> infoMemory() {
        List<String> infos = new ArrayList<>();
        if (main instanceof StatefulRedisClusterConnection<?, ?> c) {
            StatefulRedisClusterConnection<byte[], byte[]> cluster = (StatefulRedisClusterConnection<byte[], byte[]>) c;
            for (RedisClusterNode node : cluster.getPartitions()) {
                if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
                    infos.add(cluster.getConnection(node.getNodeId()).sync().info("memory"));
                }
            }
        } else {
            infos.add(((StatefulRedisConnection<byte[], byte[]>) main).sync().info("memory"));
        }
        return infos;
    }

    /**
     * A connection of its own, for a caller that blocks on it ({@link ChangeFollower}'s {@code XREAD BLOCK} would hold
     * up every command behind it on the shared one). Closed by {@link #release} or with the rest.
     */
    StatefulConnection<byte[], byte[]> openOwn() {
        StatefulConnection<byte[], byte[]> connection = client instanceof RedisClusterClient cluster
                ? cluster.connect(ByteArrayCodec.INSTANCE)
                : ((RedisClient) client).connect(ByteArrayCodec.INSTANCE, nodes.get(0));
        owned.add(connection);
        return connection;
    }

    void release(StatefulConnection<byte[], byte[]> connection) {
        owned.remove(connection);
        connection.close();
    }

    /** Runs {@code task} on the client's own event executors after {@code delayMillis}. */
    void schedule(Runnable task, long delayMillis) {
        resources.eventExecutorGroup().schedule(task, delayMillis, TimeUnit.MILLISECONDS);
    }

    /**
     * Waits up to {@code timeoutNanos} for {@code answer}, with its failure as Lettuce's own exception: the cause of
     * a failed command, {@link RedisCommandTimeoutException} past the time, {@link RedisException} when interrupted
     * (the interrupt kept).
     */
    static <T> T await(Future<T> answer, long timeoutNanos) {
        try {
            return answer.get(Math.max(0, timeoutNanos), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new RedisException(e.getCause());
        } catch (TimeoutException e) {
            long millis = TimeUnit.NANOSECONDS.toMillis(timeoutNanos);
            throw new RedisCommandTimeoutException("no answer within " + millis + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RedisException("interrupted while waiting for Redis", e);
        }
    }

    /** Asynchronous commands on {@code connection}, whichever kind it is. */
    @SuppressWarnings("unchecked")
    static RedisClusterAsyncCommands<byte[], byte[]> async(StatefulConnection<byte[], byte[]> connection) {
        return connection instanceof StatefulRedisClusterConnection<?, ?> cluster
                ? ((StatefulRedisClusterConnection<byte[], byte[]>) cluster).async()
                : ((StatefulRedisConnection<byte[], byte[]>) connection).async();
    }

    @Override
    public void close() {
        try {
            owned.forEach(StatefulConnection::close);
            if (batch != null) {
                batch.close();
            }
            main.close();
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        } finally {
            resources.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }
}

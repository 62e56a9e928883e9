package io.elastikey.edge;

import io.elastikey.edge.admin.EdgeMetrics;
import io.elastikey.edge.admin.KeyServerPoolMetrics;
import io.elastikey.edge.config.EdgeConfig;
import io.elastikey.edge.keyservers.KeyServerEndpoint;
import io.elastikey.edge.keyservers.KeyServerPool;
import io.elastikey.edge.keyservers.KeyServerPoolOptions;
import io.elastikey.edge.keyservers.KeyServerProtocol;
import io.elastikey.edge.keyservers.BreakerState;
import io.elastikey.protocol.ski.SkiTls;
import io.netty.channel.EventLoopGroup;

import java.io.IOException;
import java.util.List;

/** Builds the key-server pool the configuration describes, with its metrics. */
final class KeyServerPools {
    private KeyServerPools() {
    }

    static KeyServerPool open(EdgeConfig config, EventLoopGroup io, EdgeMetrics metrics) throws IOException {
        List<KeyServerEndpoint> endpoints = config.keyServers().stream()
                .map(address -> new KeyServerEndpoint(address, config.keyServerName())).toList();
        KeyServerPoolOptions options = KeyServerPoolOptions.builder()
                .httpVersion(config.keyServerHttp())
                .protocol(config.keyServerProtocol())
                .connectionsPerEndpoint(config.keyServerConnections())
                .attemptTimeout(config.keyServerTimeout())
                .deadline(config.keyServerDeadline())
                .maxAttempts(config.keyServerAttempts())
                .failureThreshold(config.breakerFailures())
                .openDuration(config.breakerOpen())
                .healthCheckInterval(config.healthInterval())
                .build();
        KeyServerPool pool = KeyServerPool.create(endpoints,
                SkiTls.clientContext(config.clientCertificate(), config.clientKey(), config.keyServerCa(),
                        config.keyServerProtocol() == KeyServerProtocol.KEYLESS ? null : config.keyServerHttp()),
                io, options, new KeyServerPoolMetrics(metrics, endpoints));
        for (KeyServerEndpoint endpoint : endpoints) {
            metrics.gauge("elastikey.edge.keyserver.available", "1 while this key server's circuit breaker is closed",
                    pool, p -> p.status().stream().filter(s -> s.endpoint().equals(endpoint))
                            .anyMatch(s -> s.state() == BreakerState.CLOSED) ? 1 : 0, "endpoint", endpoint.toString());
        }
        return pool;
    }
}

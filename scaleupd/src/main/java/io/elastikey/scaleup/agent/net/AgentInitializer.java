// AgentInitializer -- the agent's pipeline, one handler per step of a request's path.
package io.elastikey.scaleup.agent.net;

import io.elastikey.protocol.net.ConnectionLimiter;
import io.elastikey.protocol.net.IdleConnectionCloser;
import io.elastikey.scaleup.agent.AgentConfig;
import io.elastikey.scaleup.agent.actuate.Actuator;
import io.elastikey.scaleup.agent.ledger.Ledger;
import io.elastikey.scaleup.agent.pool.MemoryPool;
import io.elastikey.scaleup.agent.pool.Owner;
import io.elastikey.scaleup.protocol.ProtocolLimits;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.LineBasedFrameDecoder;
import io.netty.util.concurrent.EventExecutorGroup;

/**
 * A request's path through the agent:
 * <pre>
 *   limit      ConnectionLimiter   over --max-connections: closed at once
 *   peer       PeerIdentifier      SO_PEERCRED -> the caller's uid and PID (then removes itself)
 *   idle       IdleConnectionCloser: nothing read or written for the idle timeout: closed
 *   frame      LineBasedFrameDecoder(4096, fail fast): bytes -> lines; longer: error answer, close
 *   encode     AnswerEncoder       ScaleUpResponse -> JSON line (outbound)
 *   parse      RequestDecoder      line -> AgentRequest; malformed: error answer, connection stays
 *   admit      InFlightLimiter     at most --max-in-flight unanswered per connection
 *   decide     DecideHandler       [decision thread] pool decision, ledger write; watch and pool answered here,
 *                                  give-back requests through GiveBackCoordinator (same thread)
 *   actuate    ActuateHandler      [decision thread] hot-plug delay, actuator, log line, answer
 * </pre>
 * The last two run on one single-thread executor shared by every connection: decisions are serialized.
 */
public final class AgentInitializer extends ChannelInitializer<Channel> {
    private final AgentConfig config;
    private final ConnectionLimiter limiter;
    private final EventExecutorGroup decider;
    private final DecideHandler decide;
    private final ActuateHandler actuate;

    public AgentInitializer(AgentConfig config, MemoryPool pool, Ledger ledger, Actuator actuator,
                            EventExecutorGroup decider) {
        this.config = config;
        this.limiter = new ConnectionLimiter(config.maxConnections(), () -> { });
        this.decider = decider;
        GiveBackCoordinator giveBack = new GiveBackCoordinator(pool, ledger, actuator, decider.next(),
                config.giveBackTimeout());
        this.decide = new DecideHandler(config, pool, ledger, giveBack, ownUid());
        this.actuate = new ActuateHandler(actuator, config.hotplugDelay());
    }

    /** The uid the agent runs as (the owner of {@code /proc/self}), who may resize the pool besides root. */
    private static int ownUid() {
        try {
            return (Integer) java.nio.file.Files.getAttribute(java.nio.file.Path.of("/proc/self"), "unix:uid");
        } catch (java.io.IOException | UnsupportedOperationException e) {
            return Owner.ROOT;
        }
    }

    /** Connections open now. */
    public int openConnections() {
        return limiter.open();
    }

    @Override
    protected void initChannel(Channel ch) {
        ChannelPipeline p = ch.pipeline();
        p.addLast("limit", limiter);
        p.addLast("peer", PeerIdentifier.INSTANCE);
        p.addLast("idle", new IdleConnectionCloser(config.idleTimeout()));
        p.addLast("frame", new LineBasedFrameDecoder(ProtocolLimits.MAX_LINE_BYTES, true, true));
        p.addLast("encode", AnswerEncoder.INSTANCE);
        p.addLast("parse", RequestDecoder.INSTANCE);
        p.addLast("admit", new InFlightLimiter(config.maxInFlight()));
        p.addLast(decider, "decide", decide);
        p.addLast(decider, "actuate", actuate);
    }
}

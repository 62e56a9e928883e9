// DecideHandler -- the pool's decision for a request, recorded in the ledger before anything else happens.
package io.elastikey.scaleup.agent.net;

import io.elastikey.scaleup.ScaleUpResponse.Status;
import io.elastikey.scaleup.agent.AgentConfig;
import io.elastikey.scaleup.agent.ClientLimits;
import io.elastikey.scaleup.agent.ledger.Ledger;
import io.elastikey.scaleup.agent.ledger.LedgerException;
import io.elastikey.scaleup.agent.pool.Decision;
import io.elastikey.scaleup.agent.pool.MemoryPool;
import io.elastikey.scaleup.agent.pool.Owner;
import io.elastikey.scaleup.protocol.ScaleUpRequest;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides each request against the {@link MemoryPool} and, when the grant moved, writes the ledger; only then does
 * the request go on to the actuator. A failed ledger write undoes the decision and answers {@code error}, so no
 * answer reports a grant the disk does not hold.
 *
 * <p>A grant belongs to the user who made it ({@link Owner}, from the connection's {@code SO_PEERCRED}): a rescale or
 * release of a grant held by another uid is answered {@code error} and changes nothing, unless the caller is root.
 * Status queries are open to every caller that can reach the socket. A caller whose credentials could not be read
 * may change nothing.
 *
 * <p>One instance serves every connection, and the agent adds it on a single-thread executor: all decisions of all
 * clients run one after another, off the event loop, which is what keeps concurrent clients from over-committing
 * the pool and lets the ledger's fsync block without stalling I/O.
 */
@Sharable
final class DecideHandler extends SimpleChannelInboundHandler<AgentRequest> {
    private static final Logger log = LoggerFactory.getLogger(DecideHandler.class);

    private final AgentConfig config;
    private final MemoryPool pool;
    private final Ledger ledger;

    DecideHandler(AgentConfig config, MemoryPool pool, Ledger ledger) {
        this.config = config;
        this.pool = pool;
        this.ledger = ledger;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, AgentRequest in) {
        ScaleUpRequest request = in.request();
        ClientLimits limits = config.limitsFor(request.client());
        if (limits == null) {
            Decision refused = new Decision(Status.DENIED, request.client(), 0, 0, pool.snapshot().freeMb(),
                    "unknown client: the agent serves only the clients configured with --client");
            ctx.fireChannelRead(new Decided(in, refused));
            return;
        }
        Owner caller = PeerIdentifier.peerOf(ctx.channel());
        Owner owner = pool.owner(request.client());
        if (request.op() != ScaleUpRequest.Op.STATUS) {
            String refusal = refusal(request, caller, owner);
            if (refusal != null) {
                log.warn("{} client={} uid={} pid={} refused: {}", request.op().wireName(), request.client(),
                        caller.uid(), caller.pid(), refusal);
                Decision held = pool.status(request.client());
                ctx.writeAndFlush(ErrorAnswers.error(request.client(), held.grantedMb(), held.poolFreeMb(),
                        in.elapsedUs(), refusal));
                return;
            }
        }
        Decision d = switch (request.op()) {
            case RESCALE -> pool.rescale(limits, request.memoryMb());
            case RELEASE -> pool.release(request.client());
            case STATUS -> pool.status(request.client());
        };
        if (d.changed()) {
            pool.setOwner(request.client(), owner != null ? owner : caller); // root acting keeps the owner
            try {
                ledger.write(pool.grants(), pool.owners());
            } catch (LedgerException e) {
                pool.undo(d);
                pool.setOwner(request.client(), owner);
                log.error("{} client={} refused: {}", request.op().wireName(), request.client(), e.getMessage());
                ctx.writeAndFlush(ErrorAnswers.error(request.client(), d.previousMb(), pool.snapshot().freeMb(),
                        in.elapsedUs(), "the ledger could not be written, grant unchanged: " + e.getMessage()));
                return;
            }
        }
        ctx.fireChannelRead(new Decided(in, d));
    }

    /** Why {@code caller} may not change the grant {@code owner} holds for the request's client; null if it may. */
    private String refusal(ScaleUpRequest request, Owner caller, Owner owner) {
        String what = request.op().wireName() + " of client " + request.client();
        if (caller.uid() < 0) {
            return what + " refused: the agent could not read the caller's credentials (SO_PEERCRED)";
        }
        if (owner == null) {
            return pool.unowned(request.client()) && caller.uid() != Owner.ROOT
                    ? what + " refused: its grant has no recorded owner (restored from a version-1 ledger); only "
                    + "root may change it" : null;
        }
        return owner.admits(caller.uid()) ? null
                : what + " refused: its grant belongs to " + owner + ", not to uid " + caller.uid();
    }
}

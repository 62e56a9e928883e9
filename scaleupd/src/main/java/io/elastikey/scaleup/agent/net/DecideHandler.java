// DecideHandler -- the pool's decision for a request, recorded in the ledger before anything else happens.
package io.elastikey.scaleup.agent.net;

import io.elastikey.scaleup.ScaleUpResponse;
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
import io.netty.channel.ChannelPipeline;
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
 * <p>Two requests are answered here and go no further: {@code watch} (the connection becomes the client's channel
 * for give-back requests) and {@code pool} (an administrator resizing the pool). A grant that moved is reported to
 * the {@link GiveBackCoordinator}, for which a client's rescale down is the acknowledgement of a give-back request,
 * and a grow the pool could not cover may make it ask the others to give back.
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
    private final GiveBackCoordinator giveBack;
    private final int agentUid;

    DecideHandler(AgentConfig config, MemoryPool pool, Ledger ledger, GiveBackCoordinator giveBack, int agentUid) {
        this.config = config;
        this.pool = pool;
        this.ledger = ledger;
        this.giveBack = giveBack;
        this.agentUid = agentUid;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, AgentRequest in) {
        ScaleUpRequest request = in.request();
        Owner caller = PeerIdentifier.peerOf(ctx.channel());
        if (request.op() == ScaleUpRequest.Op.POOL) {
            resizePool(ctx, in, caller);
            return;
        }
        ClientLimits limits = config.limitsFor(request.client());
        if (limits == null) {
            Decision refused = new Decision(Status.DENIED, request.client(), 0, 0, pool.snapshot().freeMb(),
                    "unknown client: the agent serves only the clients configured with --client");
            if (request.op() == ScaleUpRequest.Op.WATCH) {
                ctx.writeAndFlush(answer(refused, in));
            } else {
                ctx.fireChannelRead(new Decided(in, refused));
            }
            return;
        }
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
        if (request.op() == ScaleUpRequest.Op.WATCH) {
            watch(ctx, in, caller);
            return;
        }
        Decision d = switch (request.op()) {
            case RESCALE -> pool.rescale(limits, request.memoryMb());
            case RELEASE -> pool.release(request.client());
            default -> pool.status(request.client());
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
        if (request.op() != ScaleUpRequest.Op.STATUS) {
            giveBack.grantChanged(request.client(), d.grantedMb());
        }
        if (request.op() == ScaleUpRequest.Op.RESCALE && request.memoryMb() > d.grantedMb()) {
            d = askOthers(limits, request.memoryMb(), d);
        }
        ctx.fireChannelRead(new Decided(in, d));
    }

    /**
     * A grow the pool could not cover in full: if the client is below its fair share, the clients above theirs are
     * asked to give back what it lacks up to that share. The answer stands as decided (the client asks again once
     * they have: its governor does on its next grow); its message says who was asked.
     */
    private Decision askOthers(ClientLimits limits, long askedMb, Decision d) {
        long fair = Math.max(pool.fairShareMb(limits.name()), limits.minMb());
        long want = Math.min(Math.min(askedMb, limits.maxMb()), fair);
        long need = pool.shortfall(limits.name(), want);
        if (need <= 0) {
            return d;
        }
        String asked = giveBack.ask(pool.giveBackTargets(need, limits.name()),
                "client " + limits.name() + " needs " + need + " MiB more (up to its fair share of " + fair + " MiB)");
        return asked.isEmpty() ? d : new Decision(d.status(), d.client(), d.previousMb(), d.grantedMb(),
                d.poolFreeMb(), d.message() + "; " + asked + ": ask again then");
    }

    /** {@code watch}: the connection stays open, without idle timeout, and carries the client's give-back requests. */
    private void watch(ChannelHandlerContext ctx, AgentRequest in, Owner caller) {
        ChannelPipeline p = ctx.pipeline();
        if (p.get("idle") != null) {
            p.remove("idle");
        }
        Decision held = pool.status(in.request().client());
        ctx.writeAndFlush(answer(new Decision(Status.GRANTED, held.client(), held.grantedMb(), held.grantedMb(),
                held.poolFreeMb(), "watching: give-back requests for " + held.client() + " come on this connection"),
                in));
        giveBack.watch(in.request().client(), ctx.channel());
        log.info("watch client={} uid={} pid={} granted_mb={}", held.client(), caller.uid(), caller.pid(),
                held.grantedMb());
    }

    /**
     * {@code pool}: an administrator (root, or the user the agent runs as) resizes the pool. A pool smaller than what
     * is lent makes the agent ask the clients to give back the difference; see {@link GiveBackCoordinator}.
     */
    private void resizePool(ChannelHandlerContext ctx, AgentRequest in, Owner caller) {
        ScaleUpRequest request = in.request();
        long newPool = request.memoryMb();
        String refusal = null;
        if (caller.uid() < 0) {
            refusal = "pool change refused: the agent could not read the caller's credentials (SO_PEERCRED)";
        } else if (caller.uid() != Owner.ROOT && caller.uid() != agentUid) {
            refusal = "pool change refused: only root or the agent's own user (uid " + agentUid
                    + ") may resize the pool, not uid " + caller.uid();
        } else if (newPool < pool.minimumsMb() || newPool == 0) {
            refusal = "pool change refused: " + newPool + " MiB cannot hold the clients' minimums ("
                    + pool.minimumsMb() + " MiB)";
        }
        if (refusal != null) {
            log.warn("pool client={} uid={} pid={} pool_mb={} refused: {}", request.client(), caller.uid(),
                    caller.pid(), newPool, refusal);
            ctx.writeAndFlush(ErrorAnswers.error(request.client(), pool.poolMb(), pool.snapshot().freeMb(),
                    in.elapsedUs(), refusal));
            return;
        }
        long was = pool.poolMb();
        pool.resize(newPool);
        long over = pool.overCommitMb();
        String asked = over > 0 ? giveBack.ask(pool.giveBackTargets(over, null),
                "the pool shrank from " + was + " to " + newPool + " MiB") : "";
        String message = "pool " + (newPool < was ? "shrunk" : newPool > was ? "grown" : "unchanged") + " from " + was
                + " to " + newPool + " MiB" + (asked.isEmpty() ? "" : "; " + asked);
        log.info("pool client={} uid={} pid={} was_mb={} pool_mb={} over_committed_mb={} message=\"{}\"",
                request.client(), caller.uid(), caller.pid(), was, newPool, over, message);
        ctx.writeAndFlush(new ScaleUpResponse(Status.GRANTED, request.client(), newPool, pool.snapshot().freeMb(),
                in.elapsedUs(), message));
    }

    private static ScaleUpResponse answer(Decision d, AgentRequest in) {
        return new ScaleUpResponse(d.status(), d.client(), d.grantedMb(), d.poolFreeMb(), in.elapsedUs(),
                d.message());
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

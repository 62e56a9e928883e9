// ActuateHandler -- applies a decided grant (hot-plug delay, actuator), logs it and answers.
package io.elastikey.scaleup.agent.net;

import io.elastikey.scaleup.ScaleUpResponse;
import io.elastikey.scaleup.ScaleUpResponse.Status;
import io.elastikey.scaleup.agent.actuate.Actuation;
import io.elastikey.scaleup.agent.actuate.Actuator;
import io.elastikey.scaleup.agent.pool.Decision;
import io.elastikey.scaleup.protocol.ScaleUpRequest;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;

/**
 * The last inbound step: for a rescale or release that stands (granted or partial), waits the simulated hot-plug
 * delay if the grant moved, then lets the {@link Actuator} make the grant real for the asking process. The grant
 * stands whatever the actuator reports; its note goes into the answer's message. Logs one INFO line per rescale or release
 * (status queries at DEBUG).
 *
 * <p>Shared, on the same single decision thread as {@link DecideHandler}: hot-plugs happen one at a time, as on a
 * machine with one memory controller, and never on the event loop.
 */
@Sharable
final class ActuateHandler extends SimpleChannelInboundHandler<Decided> {
    private static final Logger log = LoggerFactory.getLogger("io.elastikey.scaleup.agent.decisions");

    private final Actuator actuator;
    private final long hotplugDelayNanos;

    ActuateHandler(Actuator actuator, Duration hotplugDelay) {
        this.actuator = actuator;
        this.hotplugDelayNanos = hotplugDelay.toNanos();
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Decided in) {
        Decision d = in.decision();
        ScaleUpRequest request = in.request().request();
        int pid = PeerIdentifier.pidOf(ctx.channel());
        int uid = PeerIdentifier.peerOf(ctx.channel()).uid();
        String note = "";
        boolean stands = d.status() == Status.GRANTED || d.status() == Status.PARTIAL;
        if (request.op() != ScaleUpRequest.Op.STATUS && stands) {
            if (d.changed() && hotplugDelayNanos > 0) {
                sleep(hotplugDelayNanos);
            }
            Actuation a = actuator.apply(d.client(), d.grantedMb(), pid);
            note = a.note();
        }
        String message = note.isEmpty() ? d.message() : d.message() + "; " + note;
        ScaleUpResponse answer = new ScaleUpResponse(d.status(), d.client(), d.grantedMb(), d.poolFreeMb(),
                in.request().elapsedUs(), message);
        if (request.op() == ScaleUpRequest.Op.RESCALE) {
            log.info("rescale client={} uid={} pid={} asked_mb={} status={} granted_mb={} was_mb={} pool_free_mb={} "
                            + "elapsed_us={} reason=\"{}\" message=\"{}\"", d.client(), uid, pid, request.memoryMb(),
                    d.status().wireName(), d.grantedMb(), d.previousMb(), d.poolFreeMb(), answer.elapsedUs(),
                    printable(request.reason()), message);
        } else if (request.op() == ScaleUpRequest.Op.RELEASE) {
            log.info("{} client={} uid={} pid={} status={} granted_mb={} was_mb={} pool_free_mb={} elapsed_us={} "
                            + "message=\"{}\"", request.op().wireName(), d.client(), uid, pid, d.status().wireName(),
                    d.grantedMb(), d.previousMb(), d.poolFreeMb(), answer.elapsedUs(), message);
        } else {
            log.debug("status client={} pid={} granted_mb={} pool_free_mb={}", d.client(), pid, d.grantedMb(),
                    d.poolFreeMb());
        }
        ctx.writeAndFlush(answer);
    }

    /** The simulated hot-plug; an interrupt (the agent closing) cuts it short. */
    private static void sleep(long nanos) {
        try {
            Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The client's reason with control characters and quotes made harmless for a one-line log. */
    private static String printable(String s) {
        StringBuilder b = new StringBuilder(s.length());
        s.codePoints().forEach(c -> b.appendCodePoint(c < 0x20 || c == 0x7f || c == '"' ? '?' : c));
        return b.toString();
    }
}

// KeylessRequestHandler -- the application step of a Keyless connection: serves each frame, answers in completion order.
package io.elastikey.keyserver.keyless;

import io.elastikey.keyserver.tls.ClientAuthenticationHandler;
import io.elastikey.keyserver.ski.Caller;
import io.elastikey.keyserver.ski.RequestLog;
import io.elastikey.keyserver.ski.SkiService;
import io.elastikey.keyserver.tickets.TicketKeyService;
import io.elastikey.protocol.keyless.KeylessCodec;
import io.elastikey.protocol.keyless.KeylessError;
import io.elastikey.protocol.keyless.KeylessMessage;
import io.elastikey.protocol.keyless.KeylessOpcode;
import io.elastikey.protocol.keyless.KeylessProblem;
import io.elastikey.protocol.net.ReadGate;
import io.elastikey.protocol.pki.KeyIds;
import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiException;
import io.elastikey.protocol.ski.SkiRequest;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;


/**
 * Serves the frames of one connection. Key operations go to the {@link SkiService} and are answered when they
 * complete, in whatever order that is, so one slow operation (a key loaded from disk, an RSA-4096 decryption)
 * holds no other back. A ping is answered at once, on the event loop, as is a request for the ticket keys; so are
 * frames that cannot be served (bad opcode, format error), each with its own request's ID.
 *
 * <p>At most {@code maxInFlight} operations are in flight per connection: at the limit the handler stops reading
 * from the socket, and TCP holds the client back until answers drain below half of it. Nothing is refused, nothing
 * buffered without bound.
 *
 * <p>Every answered operation is told to the {@link RequestLog} (metrics and audit, naming the protocol); pings are
 * not. Nothing about payloads or answers is logged.
 */
final class KeylessRequestHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(KeylessRequestHandler.class);

    private final SkiService service;
    private final RequestLog requestLog;
    private final TicketKeyService ticketKeys;
    private final long deadlineNanos;
    private final int maxInFlight;
    private int inFlight;

    KeylessRequestHandler(SkiService service, RequestLog requestLog, TicketKeyService ticketKeys, long deadlineNanos,
                          int maxInFlight) {
        this.service = service;
        this.requestLog = requestLog;
        this.ticketKeys = ticketKeys;
        this.deadlineNanos = deadlineNanos;
        this.maxInFlight = maxInFlight;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        long start = System.nanoTime();
        Caller caller = ClientAuthenticationHandler.caller(ctx.channel());
        if (msg instanceof KeylessProblem problem) {
            log.debug("Keyless frame from {} refused: {}", caller.name(), problem.reason());
            requestLog.answered(caller, null, null, SkiError.MALFORMED_REQUEST, System.nanoTime() - start);
            answerError(ctx, problem.id(), problem.error());
            if (problem.fatal()) {
                ctx.flush();
                ctx.close();
            }
            return;
        }
        if (!(msg instanceof KeylessMessage message)) {
            ctx.fireChannelRead(msg);
            return;
        }
        KeylessOpcode opcode = KeylessOpcode.ofCode(message.opcode());
        if (opcode == KeylessOpcode.PING) {
            answer(ctx, message.id(), KeylessOpcode.PONG, message.payload());
            return;
        }
        if (opcode == KeylessOpcode.TICKET_KEYS) {
            answerTicketKeys(ctx, caller, message.id());
            return;
        }
        if (opcode == null || !opcode.isRequest()) {
            KeylessError error = opcode == null ? KeylessError.BAD_OPCODE : KeylessError.UNEXPECTED_OPCODE;
            requestLog.answered(caller, null, null, SkiError.MALFORMED_REQUEST, System.nanoTime() - start);
            answerError(ctx, message.id(), error);
            return;
        }
        byte[] identifier = message.keyIdentifier();
        if (identifier == null || message.payload() == null) {
            requestLog.answered(caller, opcode.method(), null, identifier == null ? SkiError.SPKI_NOT_FOUND
                    : SkiError.MALFORMED_REQUEST, System.nanoTime() - start);
            answerError(ctx, message.id(), identifier == null ? KeylessError.KEY_NOT_FOUND : KeylessError.FORMAT_ERROR);
            return;
        }
        execute(ctx, caller, message.id(), opcode.toSkiRequest(KeyIds.hex(identifier), message.payload()), start);
    }

    /**
     * The deployment's ticket keys as JSON, or {@code key not found} to a caller the policy does not grant
     * {@code allow tickets} (Keyless has no refusal code). Not a key operation, so not in the request metrics; the
     * keys are never logged.
     */
    private void answerTicketKeys(ChannelHandlerContext ctx, Caller caller, int id) {
        try {
            answer(ctx, id, KeylessOpcode.RESPONSE, ticketKeys.answer(caller));
            log.debug("ticket keys to {} over Keyless", caller.name());
        } catch (SkiException e) {
            log.info("ticket keys refused: {}", e.getMessage());
            answerError(ctx, id, KeylessError.KEY_NOT_FOUND);
        }
    }

    private void execute(ChannelHandlerContext ctx, Caller caller, int id, SkiRequest request, long start) {
        if (++inFlight >= maxInFlight) {
            ReadGate.hold(ctx.channel(), ReadGate.Reason.REQUESTS_IN_FLIGHT);
        }
        service.execute(caller, request, start + deadlineNanos).whenComplete((output, failure) -> {
            if (ctx.executor().inEventLoop()) {
                completed(ctx, caller, id, request, output, failure, start);
            } else {
                ctx.executor().execute(() -> completed(ctx, caller, id, request, output, failure, start));
            }
        });
    }

    private void completed(ChannelHandlerContext ctx, Caller caller, int id, SkiRequest request, byte[] output,
                           Throwable failure, long start) {
        if (--inFlight <= maxInFlight / 2) {
            ReadGate.release(ctx.channel(), ReadGate.Reason.REQUESTS_IN_FLIGHT);
        }
        if (failure == null) {
            answer(ctx, id, KeylessOpcode.RESPONSE, output);
            requestLog.answered(caller, request.method(), request.spki(), null, System.nanoTime() - start);
            return;
        }
        SkiError error = SkiException.errorOf(failure);
        if (error == SkiError.UNSPECIFIED_ERROR) {
            log.warn("Keyless {} from {} on {} failed: {}", request.method().wireName(), caller.name(), request.spki(),
                    failure instanceof SkiException ? failure.getMessage() : failure.toString());
        }
        answerError(ctx, id, KeylessAnswers.errorFor(error));
        requestLog.answered(caller, request.method(), request.spki(), error, System.nanoTime() - start);
    }


    private static void answer(ChannelHandlerContext ctx, int id, KeylessOpcode opcode, byte[] payload) {
        ByteBuf out = ctx.alloc().ioBuffer(KeylessCodec.answerLength(payload));
        KeylessCodec.writeAnswer(out, id, opcode, payload);
        ctx.writeAndFlush(out, ctx.voidPromise());
    }

    private static void answerError(ChannelHandlerContext ctx, int id, KeylessError error) {
        ByteBuf out = ctx.alloc().ioBuffer(KeylessCodec.answerLength(new byte[1]));
        KeylessCodec.writeError(out, id, error);
        ctx.writeAndFlush(out, ctx.voidPromise());
    }
}

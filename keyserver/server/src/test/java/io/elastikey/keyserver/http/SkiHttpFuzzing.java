// SkiHttpFuzzing -- the key server's HTTP pipeline after TLS, in an EmbeddedChannel, for the HTTP fuzz targets.
package io.elastikey.keyserver.http;

import io.elastikey.keyserver.authz.Grants;
import io.elastikey.keyserver.tickets.TicketKeySchedule;
import io.elastikey.keyserver.tickets.TicketKeyService;
import io.elastikey.protocol.net.ProtocolErrorHandler;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.elastikey.keyserver.authz.ClientIdentity;
import io.elastikey.keyserver.ski.Caller;
import io.elastikey.keyserver.ski.RequestLog;
import io.elastikey.keyserver.ski.SkiService;
import io.elastikey.protocol.pki.CertificateAuthority;
import io.elastikey.protocol.pki.KeyType;
import io.elastikey.protocol.pki.Validity;
import io.elastikey.protocol.ski.SkiError;
import io.elastikey.protocol.ski.SkiException;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.DefaultChannelId;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.local.LocalServerChannel;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.util.AttributeKey;

/**
 * Builds the pipeline {@link ProtocolNegotiator} completes once ALPN has chosen, on an {@link EmbeddedChannel}: TLS
 * is left out (the fuzzer feeds plaintext) and the {@link Caller} is set on the channel as
 * {@link ClientAuthenticationHandler} sets it after the handshake (same attribute, looked up by its name), so the
 * production classes run unchanged. The {@link SkiService} behind the handler is a stand-in: the targets fuzz the
 * HTTP path, not the keys; it answers the request's input reversed, or {@code spki not found} for a key
 * identifier starting with {@code 0}, so both answer shapes are exercised.
 */
final class SkiHttpFuzzing {
    static final int MAX_BODY_BYTES = 4096;
    static final int MAX_HEADER_BYTES = 2048;
    static final int MAX_STREAMS = 8;

    private static final AttributeKey<Caller> CALLER = AttributeKey.valueOf("elastikey.caller");
    private static final Caller CALLER_VALUE = caller();
    /** Ticket keys nobody is granted: {@code GET /ticket-keys} answers 403, as to a client without the grant. */
    private static final TicketKeyService TICKET_KEYS = new TicketKeyService(
            new TicketKeySchedule(new byte[32], Duration.ofHours(1), System::currentTimeMillis), identity -> Grants.none());

    private SkiHttpFuzzing() {
    }

    /** A channel whose pipeline is what ALPN's {@code protocol} gets after TLS and client authentication. */
    static EmbeddedChannel channel(String protocol) {
        return channel(protocol, SkiHttpFuzzing::serve);
    }

    /** The same pipeline with {@code service} behind the handler. */
    static EmbeddedChannel channel(String protocol, SkiService service) {
        return channel(protocol, service, (caller, method, spki, error, nanos) -> { }, Duration.ofSeconds(10));
    }

    /** The same pipeline, telling {@code requestLog} of every answer, with a request-read timeout of its own. */
    static EmbeddedChannel channel(String protocol, SkiService service, RequestLog requestLog, Duration requestRead) {
        // A server channel as the parent: Http2MultiplexHandler tells server from client by it.
        EmbeddedChannel channel = new EmbeddedChannel(new LocalServerChannel(), DefaultChannelId.newInstance(), true,
                false);
        channel.attr(CALLER).set(CALLER_VALUE);
        ProtocolErrorHandler errors = new ProtocolErrorHandler(kind -> { });
        ProtocolNegotiator negotiator = new ProtocolNegotiator(
                new ProtocolNegotiator.Limits(MAX_BODY_BYTES, MAX_HEADER_BYTES, MAX_STREAMS, requestRead),
                errors, requestLog,
                () -> new SkiHttpHandler(service, requestLog, 1L << 40, false, errors, TICKET_KEYS));
        channel.pipeline().addLast("alpn", negotiator);
        channel.pipeline().addLast(ProtocolErrorHandler.NAME, errors);
        ChannelHandlerContext ctx = channel.pipeline().context(negotiator);
        negotiator.configurePipeline(ctx, protocol);
        channel.pipeline().remove(negotiator);
        return channel;
    }

    static boolean isHttp2(String protocol) {
        return ApplicationProtocolNames.HTTP_2.equals(protocol);
    }

    /** What the stand-in service answers for {@code input} under {@code spki}: its bytes reversed. */
    static byte[] expectedOutput(byte[] input) {
        byte[] output = new byte[input.length];
        for (int i = 0; i < input.length; i++) {
            output[i] = input[input.length - 1 - i];
        }
        return output;
    }

    private static CompletableFuture<byte[]> serve(Caller caller, io.elastikey.protocol.ski.SkiRequest request,
                                                   long deadlineNanos) {
        if (request.spki().startsWith("0")) {
            return CompletableFuture.failedFuture(new SkiException(SkiError.SPKI_NOT_FOUND));
        }
        return CompletableFuture.completedFuture(expectedOutput(request.input()));
    }

    private static Caller caller() {
        try {
            CertificateAuthority ca = CertificateAuthority.create("Fuzz CA", KeyType.EC_P256, Validity.days(1));
            ClientIdentity identity = ClientIdentity.of(ca.issueClient("fuzz-client", List.of(), KeyType.EC_P256,
                    Validity.days(1)).certificate());
            return new Caller(identity, new InetSocketAddress("127.0.0.1", 4242), (keyId, tags, names) -> true);
        } catch (Exception e) {
            throw new IllegalStateException("cannot make the fuzz caller's certificate", e);
        }
    }
}

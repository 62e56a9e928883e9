// RespProtocolException -- a request that breaks the RESP framing rules or the server's size limits.
package io.elastikey.resp;

import io.netty.handler.codec.DecoderException;

/**
 * Thrown by {@link RespRequestDecoder} for input Redis would also refuse ("Protocol error: ..."). The
 * connection answers it with an error reply, after the replies already due, and is closed: after a
 * framing error nothing that follows can be trusted to start a command.
 */
public final class RespProtocolException extends DecoderException {
    private static final long serialVersionUID = 1L;

    public RespProtocolException(String message) {
        super(message);
    }
}

// RequestReadTimeoutException -- the decoder failure of a request that did not arrive in time: answered 408.
package io.elastikey.protocol.http;

import io.netty.handler.codec.DecoderException;

/**
 * Put by {@link RequestReadTimer} into the decoder result of the stand-in request it hands the application when a
 * request's head and body have not all arrived within the request-read timeout. The application answers it
 * {@code 408 Request Timeout}, in request order, and closes.
 */
public final class RequestReadTimeoutException extends DecoderException {
    private static final long serialVersionUID = 1L;

    public RequestReadTimeoutException(String message) {
        super(message);
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
        return this; // a client's slowness, not a place in our code
    }
}

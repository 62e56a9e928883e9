// ExchangePool -- what carries exchanges to the server: a pool of HTTP/1.1 or of HTTP/2 connections.
package io.elastikey.protocol.ski;

import java.util.concurrent.CompletableFuture;

/**
 * The connections of one {@link SkiClient}. A pool sends each exchange it is given, eventually: at once, after a
 * connection is made, or when one is free; it fails an exchange only for a transport reason (the client's timeout and
 * close fail exchanges from outside). Safe for use by many threads.
 */
interface ExchangePool {
    /** Sends {@code exchange} when a connection can take it. */
    void submit(Exchange<?> exchange);

    /** Makes every connection not yet made; completes when all are up, fails with the first that cannot be. */
    CompletableFuture<Void> connectAll();

    /** How many connections are up now. */
    int connected();

    /** Closes every connection; later submissions are the client's to refuse. */
    void close();
}

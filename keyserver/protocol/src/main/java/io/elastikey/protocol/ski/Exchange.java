// Exchange -- one HTTP request of an SkiClient and the future its answer completes, whichever pool carries it.
package io.elastikey.protocol.ski;

import java.util.concurrent.CompletableFuture;

import io.elastikey.protocol.ski.SkiTransportException.Kind;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;

/**
 * A request on its way: what to send, how to read the answer, and the future to complete. The body is written only
 * when a channel takes the exchange ({@link #writeBody}), with that channel's allocator, so an exchange that waits,
 * times out or is refused never holds a buffer to release.
 *
 * <p>The future completes once, by whoever comes first: the answer, a transport failure, the timeout or
 * {@link SkiClient#close()}. A timeout must also stop the work in progress, which depends on the pool: an HTTP/2
 * stream is reset, an HTTP/1.1 connection closed (there is no other way to cancel its one request). The pool records
 * how with {@link #carriedBy}; {@link #fail} runs it if the exchange ends before its answer.
 *
 * @param <T> what the answer is read into
 */
final class Exchange<T> {
    /** Reads an answer on the event loop; the body is released by the caller afterwards. */
    @FunctionalInterface
    interface AnswerReader<T> {
        T read(int status, ByteBuf body) throws Exception;
    }

    /** Writes the request body into a new buffer from {@code alloc}. */
    @FunctionalInterface
    interface BodyWriter {
        ByteBuf write(ByteBufAllocator alloc);
    }

    final String method;
    final String path;
    final String contentType;
    private final BodyWriter body;
    private final AnswerReader<T> reader;
    final CompletableFuture<T> future = new CompletableFuture<>();
    private volatile Runnable stop;

    Exchange(String method, String path, String contentType, BodyWriter body, AnswerReader<T> reader) {
        this.method = method;
        this.path = path;
        this.contentType = contentType;
        this.body = body;
        this.reader = reader;
    }

    ByteBuf writeBody(ByteBufAllocator alloc) {
        return body.write(alloc);
    }

    boolean isDone() {
        return future.isDone();
    }

    /** Records the channel that carries this exchange alone, to be closed if the exchange fails first. */
    void carriedBy(Channel channel) {
        carriedBy(channel::close);
    }

    /**
     * Records how to stop the work on this exchange (reset its stream, close its connection), to be run if the
     * exchange fails first. When it already has (a timeout raced the hand-over), {@code stop} runs at once.
     */
    void carriedBy(Runnable stop) {
        this.stop = stop;
        if (future.isCompletedExceptionally()) { // failed, timed out or cancelled
            stop.run();
        }
    }

    /** Completes with what the answer reads as, or with the reader's exception. */
    void answer(int status, ByteBuf content) {
        if (future.isDone()) {
            return;
        }
        try {
            future.complete(reader.read(status, content));
        } catch (Exception e) {
            future.completeExceptionally(e);
        }
    }

    /** Fails the exchange unless it is done, and then stops its carrier; true when this call failed it. */
    boolean fail(Throwable failure) {
        if (!future.completeExceptionally(failure)) {
            return false;
        }
        abandon();
        return true;
    }

    /** Stops the work on this exchange, whose caller no longer wants the answer (it cancelled). */
    void abandon() {
        Runnable carrier = stop;
        if (carrier != null) {
            carrier.run();
        }
    }

    boolean fail(Kind kind, String message, Throwable cause) {
        return fail(new SkiTransportException(kind, message, cause));
    }
}

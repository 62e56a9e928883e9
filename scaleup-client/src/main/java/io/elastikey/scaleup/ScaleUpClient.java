// ScaleUpClient -- the rescale API of PROTOCOLS.md section 3, as the store's memory governor calls it.
package io.elastikey.scaleup;

/**
 * Asks the local scale-up agent ({@code scaleupd}) for memory on behalf of one named client, and gives it back.
 *
 * <p>Two implementations speak the same wire protocol: {@code NativeScaleUpClient} through libscaleup (the C API
 * the platform defines) and JNI, and {@code SocketScaleUpClient} in pure Java. One contract test suite runs against
 * both. Implementations are thread-safe; every call has a timeout, so an absent or stuck agent costs a caller at
 * most that long.
 *
 * <p>An answer from the agent, including {@code denied} and {@code error}, is a {@link ScaleUpResponse}; a call
 * that got no well-formed answer (no agent, timeout, garbage) throws {@link ScaleUpException} naming why.
 */
public interface ScaleUpClient extends AutoCloseable {

    /** The client name every request carries; the agent keeps one grant per name. */
    String clientName();

    /**
     * Asks for a total of {@code memoryMb} for this client (not an increment): more than the current grant to grow,
     * less to shrink. The agent answers {@code granted}, {@code partial} (less than asked) or {@code denied}.
     */
    ScaleUpResponse rescale(long memoryMb, String reason) throws ScaleUpException;

    /** The client's current grant and the pool's free memory. */
    ScaleUpResponse status() throws ScaleUpException;

    /** Gives the client's whole grant back to the pool. */
    ScaleUpResponse release() throws ScaleUpException;

    /**
     * The agent's socket, where a {@code GiveBackWatch} listens for the agent's give-back requests to this client;
     * {@code null} when the implementation talks to no socket (a test's stand-in), so nothing listens.
     */
    default java.nio.file.Path socketPath() {
        return null;
    }

    /** Releases local resources (not the grant). Idempotent. */
    @Override
    void close();
}

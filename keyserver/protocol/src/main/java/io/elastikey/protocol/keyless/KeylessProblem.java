// KeylessProblem -- a frame that cannot be served, with the error to answer it with.
package io.elastikey.protocol.keyless;

/**
 * A frame the decoder could not turn into a {@link KeylessMessage}.
 *
 * @param id     the header's request ID, for the error answer
 * @param error  what to answer
 * @param reason for the log: names the rule broken, never the data
 * @param fatal  {@code true} when the byte stream can no longer be trusted to be framed (a header of another
 *               protocol version): answer, then close. Otherwise only this request fails.
 */
public record KeylessProblem(int id, KeylessError error, String reason, boolean fatal) implements KeylessFrame {
}

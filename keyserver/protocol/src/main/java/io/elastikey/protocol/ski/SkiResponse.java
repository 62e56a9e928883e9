// SkiResponse -- an HTTP answer as it came: status and body bytes, for tests that send what no client should.
package io.elastikey.protocol.ski;

import java.nio.charset.StandardCharsets;

/**
 * What {@link SkiClient#post(byte[])} and {@link SkiClient#exchange} return: the answer before any SKI reading, so a
 * server test can check the status and exact body a malformed request gets.
 *
 * @param status the HTTP status
 * @param body   the body, owned by the caller
 */
public record SkiResponse(int status, byte[] body) {

    /** The body as UTF-8 text: answers are JSON, and error bodies are what tests compare. */
    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        // Never the body: a success body holds a decrypted pre-master secret or a signature.
        return "SkiResponse[status=" + status + ", body=" + body.length + " bytes]";
    }
}

// ErrorAnswers -- the "error" answers the agent gives to requests it cannot act on.
package io.elastikey.scaleup.agent.net;

import io.elastikey.scaleup.ScaleUpResponse;

/** Builds {@code {"status":"error",...}} answers; {@code client} is empty when the request named none validly. */
final class ErrorAnswers {

    private ErrorAnswers() {
    }

    static ScaleUpResponse error(String client, long grantedMb, long poolFreeMb, long elapsedUs, String message) {
        return new ScaleUpResponse(ScaleUpResponse.Status.ERROR, client, grantedMb, poolFreeMb, elapsedUs, message);
    }

    /** For a line that never became a request: no client, no numbers. */
    static ScaleUpResponse badRequest(String message) {
        return error("", 0, 0, 0, message);
    }
}

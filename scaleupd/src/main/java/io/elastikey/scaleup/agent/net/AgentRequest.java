// AgentRequest -- a parsed request with the moment its line arrived, as it moves down the agent's pipeline.
package io.elastikey.scaleup.agent.net;

import io.elastikey.scaleup.protocol.ScaleUpRequest;

/** @param receivedNanos {@link System#nanoTime()} when the line was decoded; the answer's {@code elapsed_us} base */
record AgentRequest(ScaleUpRequest request, long receivedNanos) {

    long elapsedUs() {
        return (System.nanoTime() - receivedNanos) / 1000;
    }
}

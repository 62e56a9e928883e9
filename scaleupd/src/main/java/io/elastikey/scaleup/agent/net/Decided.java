// Decided -- a request with the pool's decision, on its way to the actuator.
package io.elastikey.scaleup.agent.net;

import io.elastikey.scaleup.agent.pool.Decision;

/** What {@link DecideHandler} passes to {@link ActuateHandler}. */
record Decided(AgentRequest request, Decision decision) {
}

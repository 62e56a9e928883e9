// AgentState -- whether the governor can reach the scale-up agent.
package io.elastikey.store.governor;

/** The scale-up agent as the governor last found it. */
public enum AgentState {
    /** Not contacted yet. */
    UNKNOWN,
    /** The last call got an answer. */
    UP,
    /** The last call got none; the governor retries after a backoff. */
    DOWN
}

// Actuator -- what a grant change does to the machine, beyond the pool's accounting and the ledger.
package io.elastikey.scaleup.agent.actuate;

/**
 * Makes a grant real. Called on the agent's single decision thread after the grant is in the ledger, so an
 * implementation needs no locking and may block (a hot-plug takes time). It never throws for the environment's
 * refusal (a read-only cgroup file, a vanished process): the grant stands and the returned note says what happened.
 */
public interface Actuator {

    /** The {@code --actuator} name. */
    String name();

    /** The name and what was detected at start, for the agent's first log line. */
    default String describe() {
        return name();
    }

    /**
     * Applies {@code grantMb} as the client's total grant.
     *
     * @param peerPid the asking process, from the socket's peer credentials; {@code -1} if unknown
     */
    Actuation apply(String client, long grantMb, int peerPid);

    /**
     * Applies a grant the agent lowered on its own, because the client did not give memory back by the deadline.
     * Nobody asked, so there is no peer to move anywhere; {@code ownerPid} is the process that made the grant.
     * By default the same as {@link #apply}.
     */
    default Actuation force(String client, long grantMb, int ownerPid) {
        return apply(client, grantMb, ownerPid);
    }
}

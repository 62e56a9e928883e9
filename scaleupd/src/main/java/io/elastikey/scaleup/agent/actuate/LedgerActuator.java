// LedgerActuator -- accounting only: the grant lives in the pool and the ledger, nothing else changes.
package io.elastikey.scaleup.agent.actuate;

/**
 * The default actuator: a grant is a promise recorded in the ledger that the client keeps by itself (the store's
 * memory governor sizes its hot tier to it). Right where the agent may not touch cgroups, and in tests.
 */
public final class LedgerActuator implements Actuator {

    @Override
    public String name() {
        return "ledger";
    }

    @Override
    public Actuation apply(String client, long grantMb, int peerPid) {
        return Actuation.applied("");
    }
}

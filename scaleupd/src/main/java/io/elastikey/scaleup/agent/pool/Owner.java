// Owner -- the process that holds a grant: its uid (which decides who may change the grant) and its pid.
package io.elastikey.scaleup.agent.pool;

/**
 * Who made a grant, as the kernel reported it ({@code SO_PEERCRED} on the Unix socket; the request cannot lie
 * about it). Only {@code uid} decides anything: the same user may rescale and release the grant from another
 * process (a restarted server, the {@code scaleup} tool), root may change any grant, and other users may not.
 * {@code pid} is kept for the ledger and the log: which process asked first.
 */
public record Owner(int uid, int pid) {
    /** The superuser, who may change any grant: it could kill the agent or edit its ledger anyway. */
    public static final int ROOT = 0;

    /** Whether a caller running as {@code callerUid} may rescale or release this owner's grant. */
    public boolean admits(int callerUid) {
        return callerUid == uid || callerUid == ROOT;
    }

    @Override
    public String toString() {
        return "uid " + uid + " (pid " + pid + ")";
    }
}

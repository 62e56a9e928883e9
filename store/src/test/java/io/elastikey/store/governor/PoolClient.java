// PoolClient -- an in-test ScaleUpClient backed by a simple memory pool, with switchable failures.
package io.elastikey.store.governor;

import io.elastikey.scaleup.ScaleUpClient;
import io.elastikey.scaleup.ScaleUpException;
import io.elastikey.scaleup.ScaleUpResponse;
import io.elastikey.scaleup.ScaleUpResponse.Status;
import java.util.ArrayList;
import java.util.List;

/**
 * Grants from a pool of {@code freeMb} like the agent's ledger: a larger total takes what the pool
 * has (all: granted, some: partial, none: denied), a smaller one gives the difference back. Setting
 * {@link #failWith} makes every call throw as if the agent were absent; {@link #answerError} makes
 * it answer {@code error}. Records every call. Public for the key server's tests (store test-jar).
 */
public final class PoolClient implements ScaleUpClient {

    long freeMb;
    long grantedMb;
    volatile ScaleUpException.Reason failWith;
    volatile boolean answerError;
    final List<String> calls = new ArrayList<>();
    boolean closed;

    public PoolClient(long freeMb) {
        this.freeMb = freeMb;
    }

    /** From now on every call throws for {@code reason}; {@code null} makes the agent answer again. */
    public void failWith(ScaleUpException.Reason reason) {
        failWith = reason;
    }

    public synchronized long grantedMb() {
        return grantedMb;
    }

    public synchronized long freeMb() {
        return freeMb;
    }

    @Override
    public String clientName() {
        return "test";
    }

    @Override
    public synchronized ScaleUpResponse rescale(long memoryMb, String reason) throws ScaleUpException {
        calls.add("rescale " + memoryMb + " (" + reason + ")");
        check();
        if (answerError) {
            return answer(Status.ERROR, "actuator failed");
        }
        if (memoryMb <= grantedMb) {
            freeMb += grantedMb - memoryMb;
            grantedMb = memoryMb;
            return answer(Status.GRANTED, "");
        }
        long want = memoryMb - grantedMb;
        long give = Math.min(want, freeMb);
        freeMb -= give;
        grantedMb += give;
        return answer(give == 0 ? Status.DENIED : give < want ? Status.PARTIAL : Status.GRANTED, "");
    }

    @Override
    public synchronized ScaleUpResponse status() throws ScaleUpException {
        calls.add("status");
        check();
        return answer(Status.GRANTED, "");
    }

    @Override
    public synchronized ScaleUpResponse release() throws ScaleUpException {
        calls.add("release");
        check();
        freeMb += grantedMb;
        grantedMb = 0;
        return answer(Status.GRANTED, "");
    }

    @Override
    public synchronized void close() {
        closed = true;
    }

    synchronized long callCount() {
        return calls.size();
    }

    private void check() throws ScaleUpException {
        ScaleUpException.Reason r = failWith;
        if (r != null) {
            throw new ScaleUpException(r, "test agent: " + r);
        }
    }

    private ScaleUpResponse answer(Status status, String message) {
        return new ScaleUpResponse(status, "test", grantedMb, freeMb, 10, message);
    }
}

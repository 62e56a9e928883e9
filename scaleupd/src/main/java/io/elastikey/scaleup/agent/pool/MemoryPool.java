// MemoryPool -- the agent's accounting: who holds how much of the pool, and the rule for each request.
package io.elastikey.scaleup.agent.pool;

import io.elastikey.scaleup.ScaleUpResponse.Status;
import io.elastikey.scaleup.agent.ClientLimits;

import java.util.Map;
import java.util.TreeMap;

/**
 * The pool of MiB the agent lends. A client's <em>charge</em> against the pool is its grant, or its configured
 * minimum if that is larger (a minimum is reserved from the start and never lent to anyone else); the pool is free
 * by what the charges leave. A grow is granted in full when the pool covers it, granted in part (up to the client's
 * max and the free memory) when it covers some, and denied when it covers none or the client is at its max. A shrink
 * or a release is always granted.
 *
 * <p>Each grant above zero has an {@link Owner}, the user who made it; the caller checks it ({@link Owner#admits})
 * before asking for a change, and records the owner of a new grant with {@link #setOwner}. A grant that falls to
 * zero loses its owner, so the name is free again.
 *
 * <p>All methods are {@code synchronized}: the agent decides on one thread anyway, so the lock is uncontended and only
 * makes snapshots from other threads consistent. The caller owns persistence: it writes {@link #grants()} to the
 * ledger after a change and calls {@link #undo} if that fails, so no answer ever reports a grant the ledger lacks.
 */
public final class MemoryPool {
    private long poolMb;
    private final Map<String, Long> minimums = new TreeMap<>();
    private final Map<String, Long> grants = new TreeMap<>();
    private final Map<String, Owner> owners = new TreeMap<>();

    /**
     * @param known the configured clients, whose minimums are reserved
     * @param restored grants read from the ledger; kept as they are even if they now exceed a client's max or the
     *                 pool (see {@link PoolSnapshot#overCommitMb()})
     */
    public MemoryPool(long poolMb, Iterable<ClientLimits> known, Map<String, Long> restored) {
        this(poolMb, known, restored, Map.of());
    }

    /** @param restoredOwners the owners of the restored grants; a grant without one may be changed by root only */
    public MemoryPool(long poolMb, Iterable<ClientLimits> known, Map<String, Long> restored,
                      Map<String, Owner> restoredOwners) {
        this.poolMb = poolMb;
        known.forEach(c -> minimums.put(c.name(), c.minMb()));
        restored.forEach((name, mb) -> {
            if (mb > 0) {
                grants.put(name, mb);
                if (restoredOwners.containsKey(name)) {
                    owners.put(name, restoredOwners.get(name));
                }
            }
        });
    }

    /** The owner of the client's grant; null when it holds nothing, or when a version-1 ledger named none. */
    public synchronized Owner owner(String name) {
        return owners.get(name);
    }

    /** Whether the client holds a grant whose owner is unknown (restored from a version-1 ledger). */
    public synchronized boolean unowned(String name) {
        return grant(name) > 0 && !owners.containsKey(name);
    }

    /** Records {@code owner} (null: none) for the client's grant; ignored while it holds nothing. */
    public synchronized void setOwner(String name, Owner owner) {
        if (owner == null || grant(name) == 0) {
            owners.remove(name);
        } else {
            owners.put(name, owner);
        }
    }

    /** Every grant's owner, by name, as the ledger stores them. */
    public synchronized Map<String, Owner> owners() {
        return new TreeMap<>(owners);
    }

    /** Asks for a total of {@code askedMb} for {@code limits.name()}. */
    public synchronized Decision rescale(ClientLimits limits, long askedMb) {
        String name = limits.name();
        long held = grant(name);
        if (askedMb <= held) {
            set(name, askedMb);
            return decision(Status.GRANTED, name, held, askedMb,
                    askedMb == held ? "unchanged at " + held + " MiB" : "shrunk from " + held + " to " + askedMb + " MiB");
        }
        long target = Math.min(askedMb, limits.maxMb());
        long free = free();
        long reachable = Math.min(target, charge(name, held) + free);
        if (reachable <= held) {
            String why = held >= limits.maxMb()
                    ? "already at the client's max of " + limits.maxMb() + " MiB"
                    : "the pool has no free memory";
            return decision(Status.DENIED, name, held, held, why + "; grant stays " + held + " MiB");
        }
        set(name, reachable);
        if (reachable == askedMb) {
            return decision(Status.GRANTED, name, held, reachable, "grown from " + held + " to " + reachable + " MiB");
        }
        String why = reachable == limits.maxMb() ? "capped at the client's max of " + limits.maxMb() + " MiB"
                : "the pool had only " + free + " MiB free";
        return decision(Status.PARTIAL, name, held, reachable,
                "granted " + reachable + " of " + askedMb + " MiB asked: " + why);
    }

    /** Gives the client's whole grant back (its minimum stays reserved). */
    public synchronized Decision release(String name) {
        long held = grant(name);
        set(name, 0);
        return decision(Status.GRANTED, name, held, 0, "released " + held + " MiB");
    }

    /** The client's grant, changing nothing. */
    public synchronized Decision status(String name) {
        long held = grant(name);
        return decision(Status.GRANTED, name, held, held, "holds " + held + " MiB");
    }

    /**
     * The agent lowering a grant itself: a client asked to give back did not within its deadline. Changes nothing
     * when the grant is already at or below {@code targetMb}. The owner stays.
     */
    public synchronized Decision lower(String name, long targetMb, String why) {
        long held = grant(name);
        if (held <= targetMb) {
            return decision(Status.GRANTED, name, held, held, "unchanged at " + held + " MiB");
        }
        set(name, targetMb);
        return decision(Status.GRANTED, name, held, targetMb,
                "lowered from " + held + " to " + targetMb + " MiB by the agent: " + why);
    }

    /** The pool's size now. */
    public synchronized long poolMb() {
        return poolMb;
    }

    /** The sum of the configured minimums: the smallest pool the agent can shrink to. */
    public synchronized long minimumsMb() {
        return minimums.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * Resizes the pool (an administrator's {@code pool} request). A pool smaller than what is committed leaves it
     * over-committed, as after a restart with a smaller {@code --pool}: every grow is denied until clients give back.
     *
     * @throws IllegalArgumentException when the minimums would not fit
     */
    public synchronized void resize(long newPoolMb) {
        long reserved = minimumsMb();
        if (newPoolMb < reserved) {
            throw new IllegalArgumentException("a pool of " + newPoolMb + " MiB cannot hold the clients' minimums ("
                    + reserved + " MiB)");
        }
        poolMb = newPoolMb;
    }

    /**
     * How much more {@code name} would need to reach {@code wantMb} beyond what is free now; 0 if it fits.
     * A grant up to the client's minimum is always free for it (reserved), so only the part above counts.
     */
    public synchronized long shortfall(String name, long wantMb) {
        return Math.max(0, wantMb - charge(name, grant(name)) - free());
    }

    /**
     * Whom to ask to give back, and down to what total, to free {@code needMb}: see {@link GiveBackPlan}.
     *
     * @param forClient the client that needs the memory (not asked itself, and counted among the sharers), or null
     *                  for a pool that shrank
     */
    public synchronized Map<String, Long> giveBackTargets(long needMb, String forClient) {
        return GiveBackPlan.targets(poolMb, grants, minimums, needMb, forClient);
    }

    /** The fair share of the pool when {@code forClient} (may be null) joins the clients holding grants. */
    public synchronized long fairShareMb(String forClient) {
        return GiveBackPlan.fairShare(poolMb, grants, forClient);
    }

    /** How far the commitments exceed the pool now; 0 normally. */
    public synchronized long overCommitMb() {
        return Math.max(0, committed() - poolMb);
    }

    /** Puts the grant {@code d} changed back to what it was (its ledger write failed). */
    public synchronized void undo(Decision d) {
        set(d.client(), d.previousMb());
    }

    /** Every non-zero grant, by name, as the ledger stores them. */
    public synchronized Map<String, Long> grants() {
        return new TreeMap<>(grants);
    }

    public synchronized PoolSnapshot snapshot() {
        return new PoolSnapshot(poolMb, committed(), free(), grants);
    }

    private Decision decision(Status status, String name, long before, long after, String message) {
        return new Decision(status, name, before, after, free(), message);
    }

    private long grant(String name) {
        return grants.getOrDefault(name, 0L);
    }

    private void set(String name, long mb) {
        if (mb == 0) {
            grants.remove(name);
            owners.remove(name);
        } else {
            grants.put(name, mb);
        }
    }

    private long charge(String name, long grant) {
        return Math.max(grant, minimums.getOrDefault(name, 0L));
    }

    private long committed() {
        long sum = 0;
        for (Map.Entry<String, Long> m : minimums.entrySet()) {
            sum += charge(m.getKey(), grant(m.getKey()));
        }
        for (Map.Entry<String, Long> g : grants.entrySet()) {
            if (!minimums.containsKey(g.getKey())) {
                sum += g.getValue();
            }
        }
        return sum;
    }

    private long free() {
        return Math.max(0, poolMb - committed());
    }
}

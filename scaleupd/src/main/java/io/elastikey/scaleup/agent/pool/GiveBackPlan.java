// GiveBackPlan -- which clients the agent asks to give memory back, and down to what, when the pool runs short.
package io.elastikey.scaleup.agent.pool;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The agent's rule for taking memory back, a pure function of the grants so every case is a unit test.
 *
 * <p>The <em>fair share</em> is the pool divided among the clients that hold a grant, plus the one asking for memory
 * if any. Memory is taken first from the clients above their fair share, the largest excess first, each down to no
 * lower than the larger of its fair share and its minimum. That is all a grow of another client may take: a client
 * that needs memory can claim up to its fair share, not more. When the pool itself shrank ({@code forClient} null),
 * and taking down to fair shares does not free enough, a second pass takes from the largest grants down to their
 * minimums: the pool is what the machine has, and a minimum is the one promise the agent keeps.
 *
 * <p>A grant below its client's minimum frees nothing when lowered (the minimum stays reserved), so no target goes
 * below a minimum. Targets are whole MiB; the plan may free less than asked when there is not enough above the floors.
 */
final class GiveBackPlan {

    private GiveBackPlan() {
    }

    static long fairShare(long poolMb, Map<String, Long> grants, String forClient) {
        long sharers = grants.keySet().stream().filter(n -> !n.equals(forClient)).count()
                + (forClient != null ? 1 : 0);
        return poolMb / Math.max(1, sharers);
    }

    /** Client name to the total it is asked to come down to; only clients that are asked for something. */
    static Map<String, Long> targets(long poolMb, Map<String, Long> grants, Map<String, Long> minimums, long needMb,
                                     String forClient) {
        Map<String, Long> targets = new TreeMap<>();
        if (needMb <= 0) {
            return targets;
        }
        long fair = fairShare(poolMb, grants, forClient);
        long left = take(grants, minimums, forClient, needMb, targets, name -> Math.max(fair, min(minimums, name)));
        if (left > 0 && forClient == null) {
            take(grants, minimums, null, left, targets, name -> min(minimums, name));
        }
        return targets;
    }

    /** Takes up to {@code needMb} from the grants above {@code floor}, largest excess first; returns what is left. */
    private static long take(Map<String, Long> grants, Map<String, Long> minimums, String forClient, long needMb,
                             Map<String, Long> targets, java.util.function.ToLongFunction<String> floor) {
        List<String> donors = new ArrayList<>();
        for (String name : grants.keySet()) {
            if (!name.equals(forClient) && current(grants, targets, name) > floor.applyAsLong(name)) {
                donors.add(name);
            }
        }
        donors.sort(Comparator.comparingLong((String n) -> current(grants, targets, n) - floor.applyAsLong(n))
                .reversed().thenComparing(Comparator.naturalOrder()));
        long left = needMb;
        for (String name : donors) {
            if (left <= 0) {
                break;
            }
            long now = current(grants, targets, name);
            long give = Math.min(now - floor.applyAsLong(name), left);
            targets.put(name, now - give);
            left -= give;
        }
        return left;
    }

    private static long current(Map<String, Long> grants, Map<String, Long> targets, String name) {
        return targets.getOrDefault(name, grants.getOrDefault(name, 0L));
    }

    private static long min(Map<String, Long> minimums, String name) {
        return minimums.getOrDefault(name, 0L);
    }
}

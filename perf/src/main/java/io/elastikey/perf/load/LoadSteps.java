// LoadSteps -- an open-loop load in steps of constant rate: when each request is due, and how many are due by when.
package io.elastikey.perf.load;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A list of steps, each a rate (requests per second, 0 for none) held for whole seconds, written
 * {@code RATExSECONDS} and joined by commas: {@code 1000x20,10000x60,20x45}. Requests are numbered from 0
 * across all steps; inside a step of rate {@code r}, its {@code j}-th request is due {@code j / r} seconds after
 * the step starts (rounded up to the nanosecond), so a step of {@code r} x {@code s} holds exactly {@code r * s}
 * requests. {@link #offsetNanos} and {@link #dueBy} are exact inverses: request {@code i} is due by time
 * {@code t} if and only if {@code offsetNanos(i) <= t}. Immutable.
 */
public final class LoadSteps {

    public static final long NANOS_PER_SECOND = 1_000_000_000L;
    /** Longest schedule accepted: a day. */
    static final long MAX_SECONDS = 86_400;
    /** Highest rate accepted, per step. */
    static final long MAX_RATE = 10_000_000;

    /** One step: {@code rate} requests per second for {@code seconds} seconds. */
    public record Step(long rate, long seconds) {
        public Step {
            if (rate < 0 || rate > MAX_RATE) {
                throw new IllegalArgumentException("a step's rate must be 0.." + MAX_RATE + "/s, was " + rate);
            }
            if (seconds < 1 || seconds > MAX_SECONDS) {
                throw new IllegalArgumentException("a step lasts 1.." + MAX_SECONDS + " s, was " + seconds);
            }
        }

        long requests() {
            return rate * seconds;
        }
    }

    private final List<Step> steps;
    private final long[] firstRequest;
    private final long[] startSecond;
    private final long totalRequests;
    private final long totalSeconds;

    public LoadSteps(List<Step> steps) {
        if (steps.isEmpty()) {
            throw new IllegalArgumentException("at least one step");
        }
        this.steps = List.copyOf(steps);
        firstRequest = new long[steps.size()];
        startSecond = new long[steps.size()];
        long requests = 0;
        long seconds = 0;
        for (int k = 0; k < steps.size(); k++) {
            firstRequest[k] = requests;
            startSecond[k] = seconds;
            requests += steps.get(k).requests();
            seconds += steps.get(k).seconds();
        }
        if (seconds > MAX_SECONDS) {
            throw new IllegalArgumentException("the steps last " + seconds + " s, more than " + MAX_SECONDS);
        }
        totalRequests = requests;
        totalSeconds = seconds;
    }

    /** Parses {@code RATExSECONDS[,RATExSECONDS...]}, e.g. {@code 1000x20,10000x60}. */
    public static LoadSteps parse(String text) {
        List<Step> steps = new ArrayList<>();
        for (String part : text.split(",", -1)) {
            String[] rs = part.strip().toLowerCase(Locale.ROOT).split("x", -1);
            if (rs.length != 2) {
                throw new IllegalArgumentException("'" + part + "' is not RATExSECONDS (e.g. 1000x20)");
            }
            try {
                steps.add(new Step(Long.parseLong(rs[0].strip()), Long.parseLong(rs[1].strip())));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + part + "' is not RATExSECONDS (e.g. 1000x20)");
            }
        }
        return new LoadSteps(steps);
    }

    public List<Step> steps() {
        return steps;
    }

    public long totalRequests() {
        return totalRequests;
    }

    public long totalSeconds() {
        return totalSeconds;
    }

    /** When request {@code i} (0 ≤ i < {@link #totalRequests()}) is due, in nanoseconds from the start. */
    public long offsetNanos(long i) {
        if (i < 0 || i >= totalRequests) {
            throw new IndexOutOfBoundsException("request " + i + " of " + totalRequests);
        }
        int k = steps.size() - 1;
        while (firstRequest[k] > i || steps.get(k).rate() == 0) {
            k--; // a step without requests never holds one; the one before it does
        }
        long j = i - firstRequest[k];
        long rate = steps.get(k).rate();
        return startSecond[k] * NANOS_PER_SECOND + (j * NANOS_PER_SECOND + rate - 1) / rate;
    }

    /** How many requests are due by {@code elapsedNanos} from the start (0 before it). */
    public long dueBy(long elapsedNanos) {
        if (elapsedNanos < 0) {
            return 0;
        }
        if (elapsedNanos >= totalSeconds * NANOS_PER_SECOND) {
            return totalRequests;
        }
        int k = stepAtSecond(elapsedNanos / NANOS_PER_SECOND);
        Step step = steps.get(k);
        long into = elapsedNanos - startSecond[k] * NANOS_PER_SECOND;
        long due = Math.min(step.requests(), into * step.rate() / NANOS_PER_SECOND + 1);
        return firstRequest[k] + (step.rate() == 0 ? 0 : due);
    }

    /** The offered rate during second {@code second} (0-based); 0 after the last step. */
    public long rateAt(long second) {
        return second < 0 || second >= totalSeconds ? 0 : steps.get(stepAtSecond(second)).rate();
    }

    private int stepAtSecond(long second) {
        int k = steps.size() - 1;
        while (startSecond[k] > second) {
            k--;
        }
        return k;
    }

    /** The steps as {@link #parse} reads them. */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        for (Step s : steps) {
            b.append(b.length() == 0 ? "" : ",").append(s.rate()).append('x').append(s.seconds());
        }
        return b.toString();
    }
}

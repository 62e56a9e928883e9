// ChaosEvent -- one fault of the chaos run, when it began and was undone, and what the load saw in its window.
package io.elastikey.perf.soak;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A fault is injected at {@code start}, undone at {@code undone} (the killed server restarted and ready, the stopped
 * one continued, the disk freed, Redis back), and its window runs until {@code end}: the start of the next fault, or
 * the end of the load. Seconds count from the start of the open-loop load.
 *
 * <p>{@link #judge} reads the timeline over the window: the connections that failed and their share of all that
 * ended in it (answered + failed), and the recovery time: the seconds from {@code start} to the first second from
 * which {@value #STEADY} seconds in a row answered at least {@value #FULL_RATE} of the offered rate with no failure.
 * A fault the load never noticed recovers in 0 s.
 */
record ChaosEvent(String name, String description, long start, long undone, long end, boolean oneKeyServerLives,
                  Map<String, Object> notes) {
    static final double FULL_RATE = 0.95;
    static final int STEADY = 3;
    /** The share of failed handshakes allowed while one key server lives. */
    static final double TARGET = 0.001;

    /** What the load saw in this event's window. */
    record Outcome(long answered, long failed, Map<String, Long> failures, long recoverySeconds) {
        double failedShare() {
            return answered + failed == 0 ? 0 : (double) failed / (answered + failed);
        }
    }

    Outcome judge(Timeline timeline, long offered) {
        List<Timeline.Row> rows = timeline.rows();
        long answered = 0;
        for (Timeline.Row row : rows) {
            if (row.second() >= start && row.second() < end) {
                answered += row.answered();
            }
        }
        Map<String, Long> failures = timeline.errorsBetween(start, end);
        long failed = failures.values().stream().mapToLong(Long::longValue).sum();
        long recovered = -1;
        int steady = 0;
        for (Timeline.Row row : rows) {
            if (row.second() < start) {
                continue;
            }
            boolean full = row.answered() >= FULL_RATE * offered && row.errorCount() == 0;
            steady = full ? steady + 1 : 0;
            if (steady == STEADY) {
                recovered = row.second() - STEADY + 1 - start;
                break;
            }
        }
        return new Outcome(answered, failed, failures, recovered);
    }

    Map<String, Object> describe(Outcome o) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("event", name);
        m.put("what", description);
        m.put("start_s", start);
        m.put("undone_s", undone);
        m.put("window_end_s", end);
        m.put("one_key_server_lives", oneKeyServerLives);
        m.put("answered", o.answered());
        m.put("failed", o.failed());
        m.put("failed_share", o.failedShare());
        m.put("failures", o.failures());
        m.put("target_met", !oneKeyServerLives || o.failedShare() < TARGET);
        m.put("recovery_s", o.recoverySeconds() < 0 ? null : o.recoverySeconds());
        m.putAll(notes);
        return m;
    }
}

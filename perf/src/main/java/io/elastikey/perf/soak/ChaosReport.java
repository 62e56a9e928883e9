// ChaosReport -- the chaos run's results: per fault the failed handshakes, their share and the recovery; the write checks.
package io.elastikey.perf.soak;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.elastikey.perf.handshake.HandshakeLoad;

/**
 * Turns the timeline, the events and the writers' counts into results.json and results.md. Verdicts: every fault
 * with a key server alive below {@link ChaosEvent#TARGET} failed handshakes; no acknowledged write missing or wrong,
 * before or after the RESP ElasticStore's restart; the script ran to its end.
 */
final class ChaosReport {
    private final Results results;
    private final Timeline timeline;
    private final long rate;
    private final double peak;
    private final LoadOptions load;
    private final List<ChaosEvent> events;
    private final String diskProblem;
    private final String scriptFailure;
    private boolean allMet = true;

    ChaosReport(Results results, Timeline timeline, long rate, double peak, LoadOptions load, List<ChaosEvent> events,
                String diskProblem, String scriptFailure) {
        this.results = results;
        this.timeline = timeline;
        this.rate = rate;
        this.peak = peak;
        this.load = load;
        this.events = List.copyOf(events);
        this.diskProblem = diskProblem;
        this.scriptFailure = scriptFailure;
    }

    boolean allMet() {
        return allMet;
    }

    void write(String unit, HandshakeLoad.Phase phase, Map<String, Object> machine, String command,
               AckedWriter storeWriter, long[] storeCheck, long[] storeAfterRestart, AckedWriter redisWriter,
               long[] redisCheck, Duration outage, Duration settle) {
        long seconds = timeline.rows().size();
        Map<String, Object> loadFacts = new LinkedHashMap<>();
        loadFacts.put("unit", unit);
        loadFacts.put("peak_per_second", peak);
        loadFacts.put("offered_per_second", rate);
        loadFacts.put("load_share", load.rate != null ? null : load.loadShare);
        loadFacts.put("seconds", seconds);
        loadFacts.put("answered", phase.answered());
        loadFacts.put("failed", phase.errorCount());
        loadFacts.put("failures", phase.errors());
        loadFacts.put("outage_s", outage.toSeconds());
        loadFacts.put("settle_s", settle.toSeconds());
        results.fact("load", loadFacts);

        results.line("# Chaos: an edge with two key servers under load").line("")
                .line("- command: `" + command + "`")
                .line(String.format("- machine: %s cores (%s), %s, commit %s; load average %s at the start",
                        machine.get("cores"), machine.get("cpu"), machine.get("java"), machine.get("commit"),
                        machine.get("load_average_at_start")))
                .line("- unit of load: " + unit)
                .line(String.format("- load: %,d connections/s open loop (%s) for %d s: %,d answered, %,d failed%s",
                        rate, Double.isNaN(peak) ? "as given" : String.format("%.0f%% of the %,.0f/s closed-loop "
                                + "peak", load.loadShare * 100, peak), seconds, phase.answered(), phase.errorCount(),
                        phase.errors().isEmpty() ? "" : " " + phase.errors()))
                .line(String.format("- faults: %d s each, the first after %d s, one every %d s; a fault's window runs "
                        + "from its start to the next fault's start", outage.toSeconds(), settle.toSeconds(),
                        events.size() > 1 ? events.get(1).start() - events.get(0).start() : 0));
        if (diskProblem != null) {
            results.line("- the disk-full fault did not run: " + diskProblem);
        }
        if (scriptFailure != null) {
            allMet = false;
            results.line("- **the fault script stopped early**: " + scriptFailure);
        }
        results.line("").line("| fault | window (s) | answered | failed | failed share | target < 0.1% | recovery |")
                .line("|---|---|---:|---:|---:|---|---:|");
        List<Map<String, Object>> eventFacts = new ArrayList<>();
        for (ChaosEvent e : events) {
            ChaosEvent.Outcome o = e.judge(timeline, rate);
            Map<String, Object> facts = e.describe(o);
            if (e.name().equals("disk-full") && e.notes().get("freed_s") instanceof Long freed) {
                long back = storeWriter.firstAckAtOrAfter(freed);
                facts.put("store_writes_back_after_freeing_s", back < 0 ? null : back - freed);
                facts.put("store_write_failures", storeWriter.failures());
            }
            if (e.name().equals("redis-down")) {
                long back = redisWriter.firstAckAtOrAfter(e.undone());
                facts.put("redis_writes_back_after_restart_s", back < 0 ? null : back - e.undone());
            }
            eventFacts.add(facts);
            boolean met = Boolean.TRUE.equals(facts.get("target_met"));
            allMet &= met;
            results.line(String.format("| %s | %d-%d (undone at %d) | %,d | %,d%s | %.3f%% | %s | %s |",
                    e.description(), e.start(), e.end(), e.undone(), o.answered(), o.failed(),
                    o.failures().isEmpty() ? "" : " " + o.failures(), o.failedShare() * 100, met ? "met" : "NOT met",
                    o.recoverySeconds() < 0 ? "not within the window" : o.recoverySeconds() + " s"));
        }
        results.fact("events", eventFacts);
        results.line("").line("Recovery: seconds from the fault's start to the first of " + ChaosEvent.STEADY
                + " seconds in a row with at least " + Math.round(ChaosEvent.FULL_RATE * 100) + "% of the offered "
                + "rate answered and no failure (0: the load never dipped).");
        for (Map<String, Object> facts : eventFacts) {
            List<String> notes = new ArrayList<>();
            facts.forEach((k, v) -> {
                if (k.endsWith("_bytes") || k.endsWith("_bytes_before") || k.endsWith("_after_fill")
                        || k.startsWith("restart") || k.contains("back_after") || k.contains("alive")
                        || k.equals("store_write_failures")) {
                    notes.add(k.replace('_', ' ') + ": " + v);
                }
            });
            if (!notes.isEmpty()) {
                results.line("- " + facts.get("event") + ": " + String.join("; ", notes));
            }
        }

        Map<String, Object> writes = new LinkedHashMap<>();
        writes.put("store", writerFacts(storeWriter, storeCheck, storeAfterRestart));
        writes.put("redis", writerFacts(redisWriter, redisCheck, null));
        results.fact("acknowledged_writes", writes);
        boolean writesMet = storeCheck[2] == 0 && storeCheck[3] == 0 && storeAfterRestart[2] == 0
                && storeAfterRestart[3] == 0 && redisCheck[2] == 0 && redisCheck[3] == 0;
        allMet &= writesMet;
        results.line("").line("Acknowledged writes (4 KiB values, read back through a new connection after the load):")
                .line("").line("| store | attempted | acknowledged | read back intact | missing | wrong | failed "
                        + "puts by message |").line("|---|---:|---:|---:|---:|---:|---|");
        results.line(writeRow("ElasticStore behind the RESP server (on the small disk)", storeWriter, storeCheck));
        results.line(writeRow("the same, after restarting the RESP server on its data", storeWriter,
                storeAfterRestart));
        results.line(writeRow("Redis under key server B", redisWriter, redisCheck));
        results.line("").line(String.format("Verdicts: handshakes **%s**, acknowledged writes **%s**.",
                events.stream().allMatch(e -> Boolean.TRUE.equals(e.describe(e.judge(timeline, rate))
                        .get("target_met"))) ? "met" : "NOT met", writesMet ? "none lost" : "SOME LOST OR WRONG"));
    }

    private static Map<String, Object> writerFacts(AckedWriter w, long[] check, long[] afterRestart) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("attempted", w.attempted());
        m.put("acknowledged", check[0]);
        m.put("intact", check[1]);
        m.put("missing", check[2]);
        m.put("wrong", check[3]);
        if (afterRestart != null) {
            m.put("intact_after_restart", afterRestart[1]);
            m.put("missing_after_restart", afterRestart[2]);
            m.put("wrong_after_restart", afterRestart[3]);
        }
        m.put("failures", w.failures());
        return m;
    }

    private static String writeRow(String what, AckedWriter w, long[] check) {
        return String.format("| %s | %,d | %,d | %,d | %,d | %,d | %s |", what, w.attempted(), check[0], check[1],
                check[2], check[3], w.failures().isEmpty() ? "none" : w.failures().toString().replace("|", "/"));
    }
}

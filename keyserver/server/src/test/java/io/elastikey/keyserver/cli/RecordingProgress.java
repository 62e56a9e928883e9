package io.elastikey.keyserver.cli;

import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A {@link Progress.Factory} for tests: every call, in order, as {@code "start LABEL TOTAL UNIT"}, {@code "update N"}
 * and {@code "finish N"}.
 */
public final class RecordingProgress implements Progress.Factory {
    private final List<String> events = new CopyOnWriteArrayList<>();

    public List<String> events() {
        return events;
    }

    /** The events without the updates: what a command started and how far it said it got. */
    public List<String> startsAndFinishes() {
        return events.stream().filter(e -> !e.startsWith("update ")).toList();
    }

    @Override
    public Progress start(PrintStream out, String label, long total, String unit) {
        events.add("start " + label + " " + total + " " + unit);
        return new Progress() {
            @Override
            public void update(long done) {
                events.add("update " + done);
            }

            @Override
            public void finish(long done) {
                events.add("finish " + done);
            }
        };
    }
}

package io.elastikey.keyserver.cli;

import io.elastikey.keyserver.control.RemoteProgress;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Progress displays recorded for tests, in order, as {@code "start LABEL TOTAL UNIT"}, {@code "update N"} and
 * {@code "finish N"}: what the control socket relays ({@link RemoteProgress}), or, through {@link #factory()}, what
 * a command draws.
 */
public final class RecordingProgress implements RemoteProgress {
    private final List<String> events = new CopyOnWriteArrayList<>();

    public List<String> events() {
        return events;
    }

    /** The events without the updates: what a command started and how far it said it got. */
    public List<String> startsAndFinishes() {
        return events.stream().filter(e -> !e.startsWith("update ")).toList();
    }

    /** A command's progress factory whose displays are recorded here. */
    public Progress.Factory factory() {
        return ControlProgress.sending(this);
    }

    @Override
    public void start(String label, long total, String unit) {
        events.add("start " + label + " " + total + " " + unit);
    }

    @Override
    public void update(long done) {
        events.add("update " + done);
    }

    @Override
    public void finish(long done) {
        events.add("finish " + done);
    }
}

// Progress -- how long-running key commands report progress; the launcher plugs in its terminal progress bar.
package io.elastikey.keyserver.cli;

import java.io.PrintStream;

/**
 * Progress of a long operation ({@code keys generate}, {@code keys import}). Called from one thread only.
 * The {@code elastikey} launcher supplies its redrawing progress bar through {@link Factory}; without one nothing
 * is drawn, which is what tests and embedding callers want.
 */
public interface Progress {
    /** Reports {@code done} units so far. */
    void update(long done);

    /** Reports the final count and ends the display. */
    void finish(long done);

    /** Starts a progress display. */
    @FunctionalInterface
    interface Factory {
        Progress start(PrintStream out, String label, long total, String unit);
    }

    /** Draws nothing. */
    Factory NONE = (out, label, total, unit) -> new Progress() {
        @Override
        public void update(long done) {
        }

        @Override
        public void finish(long done) {
        }
    };
}

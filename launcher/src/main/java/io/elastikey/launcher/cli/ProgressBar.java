// ProgressBar -- one line of progress for long operations, redrawn in place on a terminal.
package io.elastikey.launcher.cli;

import io.elastikey.keyserver.cli.Progress;
import java.io.PrintStream;

/**
 * Draws {@code label [#####     ]  45%  45,000/100,000  12,345/s}. On a terminal the line is
 * redrawn in place at most ten times a second; when output goes to a file or pipe, a line is
 * printed at every tenth of the way instead, so logs stay readable. It is the {@link Progress} the
 * {@code keys} commands draw with.
 */
public final class ProgressBar implements Progress {

    private static final int WIDTH = 30;

    private final PrintStream out;
    private final String label;
    private final long total;
    private final String unit;
    private final boolean terminal;
    private final long startNanos = System.nanoTime();
    private long lastDrawNanos;
    private int lastDecile = -1;

    public ProgressBar(PrintStream out, String label, long total, String unit) {
        this.out = out;
        this.label = label;
        this.total = Math.max(1, total);
        this.unit = unit;
        this.terminal = System.console() != null;
    }

    /** Reports {@code done} units so far; cheap enough to call on every unit. */
    @Override
    public void update(long done) {
        long now = System.nanoTime();
        if (terminal) {
            if (now - lastDrawNanos >= 100_000_000L) {
                lastDrawNanos = now;
                out.print("\r" + line(done, now));
                out.flush();
            }
        } else {
            int decile = (int) Math.min(10, done * 10 / total);
            if (decile > lastDecile) {
                lastDecile = decile;
                out.println(line(done, now));
            }
        }
    }

    /** Draws the final state and ends the line. */
    @Override
    public void finish(long done) {
        String l = line(done, System.nanoTime());
        if (terminal) {
            out.println("\r" + l);
        } else if (lastDecile < 10) {
            out.println(l);
        }
    }

    String line(long done, long now) {
        double fraction = Math.min(1.0, (double) done / total);
        int filled = (int) Math.round(fraction * WIDTH);
        double seconds = Math.max(1e-9, (now - startNanos) / 1e9);
        return String.format("%-22s [%s%s] %3d%%  %,d/%,d %s  %,.0f/s", label, "#".repeat(filled),
                " ".repeat(WIDTH - filled), Math.round(fraction * 100), done, total, unit, done / seconds);
    }
}

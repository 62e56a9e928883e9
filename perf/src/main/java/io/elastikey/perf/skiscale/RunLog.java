// RunLog -- where a load run's output goes: every line into its log file, a thinned view onto the console.
package io.elastikey.perf.skiscale;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The load generator prints a progress line a second; a five-minute run would scroll 300 of them past. The log file
 * gets every line; the console (when there is one) gets every {@code every}-th progress line and all other lines (what
 * ran, the report), indented under the run's heading. Lines are split on {@code \n}; not thread-safe beyond the
 * {@link PrintStream} that wraps it.
 */
final class RunLog extends OutputStream {
    private static final Pattern PROGRESS = Pattern.compile("^\\s*(\\d+)s ");

    private final OutputStream file;
    private final PrintStream console;
    private final int every;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream(256);

    /** @param console where the thinned view goes, or null for none */
    RunLog(Path logFile, PrintStream console, int every) throws IOException {
        this.file = Files.newOutputStream(logFile);
        this.console = console;
        this.every = Math.max(1, every);
    }

    @Override
    public void write(int b) throws IOException {
        line.write(b);
        if (b == '\n') {
            endLine();
        }
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
        int start = offset;
        for (int i = offset; i < offset + length; i++) {
            if (bytes[i] == '\n') {
                line.write(bytes, start, i + 1 - start);
                endLine();
                start = i + 1;
            }
        }
        line.write(bytes, start, offset + length - start);
    }

    private void endLine() throws IOException {
        byte[] bytes = line.toByteArray();
        line.reset();
        file.write(bytes);
        if (console != null) {
            String text = new String(bytes, StandardCharsets.UTF_8);
            Matcher progress = PROGRESS.matcher(text);
            if (!progress.find() || Long.parseLong(progress.group(1)) % every == 0) {
                console.print("    " + text);
            }
        }
    }

    @Override
    public void flush() throws IOException {
        file.flush();
    }

    @Override
    public void close() throws IOException {
        if (line.size() > 0) {
            line.write('\n');
            endLine();
        }
        file.close();
    }
}

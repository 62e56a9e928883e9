// RespOpenLoopGet -- GETs at a constant rate over RESP (any server: Redis, `store serve`), Zipf keys, per-second CSV.
package io.elastikey.perf.resp;

import io.elastikey.perf.load.LoadSteps;
import io.elastikey.perf.load.OpenLoopSchedule;
import io.elastikey.perf.load.ZipfKeys;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * The open-loop client of the past-RAM experiment (perf/bin/past-ram): GET requests released at {@code --rate} per
 * second by {@link OpenLoopSchedule} whatever the server's pace, each key drawn from {@link ZipfKeys}, latency counted
 * from the request's intended start (coordinated omission corrected, as wrk2 does). Any RESP server will do, which
 * is the point: the same client measures Redis and {@code elastikey store serve}.
 *
 * <p>Each worker owns one connection and sends one GET at a time (no pipelining: a key server asks for one key at a
 * time). A reply that is not a bulk string of {@code --value-size} bytes counts as an error (a missing key, an error
 * reply); a connection the server closed or reset (a killed server) ends that worker, and its remaining requests
 * count as errors at the end. Per second of the run the CSV has the completions, errors, and the p50, p99 and max
 * latency in milliseconds of the requests due in that second.
 */
@Command(name = "resp", mixinStandardHelpOptions = true, sortOptions = false,
        description = "GETs over RESP at a constant rate (open loop), Zipf-distributed keys; latency from the "
                + "intended start.")
public final class RespOpenLoopGet implements Callable<Integer> {
    static final long HIGHEST_NANOS = TimeUnit.MINUTES.toNanos(10);

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Server host (default: ${DEFAULT-VALUE}).")
    String host;

    @Option(names = "--port", required = true, description = "Server port.")
    int port;

    @Option(names = "--keys", required = true, description = "Keys 0..N-1 exist on the server.")
    int keys;

    @Option(names = "--key-format", defaultValue = "key:%012d",
            description = "Key name of a number (default: ${DEFAULT-VALUE}, as `store load` writes them).")
    String keyFormat;

    @Option(names = "--value-size", defaultValue = "4096", description = "Expected value size (default: ${DEFAULT-VALUE}).")
    int valueSize;

    @Option(names = "--rate", defaultValue = "30000", description = "GETs per second (default: ${DEFAULT-VALUE}).")
    int rate;

    @Option(names = "--duration", defaultValue = "30", description = "Measured seconds (default: ${DEFAULT-VALUE}).")
    int durationSeconds;

    @Option(names = "--warmup", defaultValue = "5", description = "Seconds run first, not measured (default: ${DEFAULT-VALUE}).")
    int warmupSeconds;

    @Option(names = "--connections", defaultValue = "32", description = "Connections, one worker thread each (default: ${DEFAULT-VALUE}).")
    int connections;

    @Option(names = "--zipf", defaultValue = "0.99", description = "Zipf exponent of the key choice (default: ${DEFAULT-VALUE}).")
    double zipf;

    @Option(names = "--slo-ms", defaultValue = "5", description = "Latency objective, counted (default: ${DEFAULT-VALUE}).")
    long sloMillis;

    @Option(names = "--csv", description = "Per-second CSV: second, gets/s, errors, p50, p99, max (ms).")
    Path csv;

    private final PrintStream out = System.out;

    public static void main(String[] args) {
        System.exit(new CommandLine(new RespOpenLoopGet()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (rate < 1 || durationSeconds < 1 || warmupSeconds < 0 || connections < 1 || keys < 1) {
            System.err.println("need --rate, --duration, --connections, --keys >= 1 and --warmup >= 0");
            return 2;
        }
        int seconds = warmupSeconds + durationSeconds;
        OpenLoopSchedule schedule = new OpenLoopSchedule(new LoadSteps(List.of(new LoadSteps.Step(rate, seconds))),
                connections);
        ZipfKeys zipfKeys = new ZipfKeys(keys, zipf);
        Worker[] workers = new Worker[connections];
        for (int i = 0; i < connections; i++) {
            workers[i] = new Worker(i, schedule, zipfKeys, seconds);
            workers[i].start();
        }
        Thread scheduler = new Thread(schedule, "open-loop-schedule");
        scheduler.setPriority(Thread.MAX_PRIORITY);
        out.printf("%,d GETs/s for %d s (after %d s not measured) over %,d keys (zipf %.2f), %d connections to %s:%d%n",
                rate, durationSeconds, warmupSeconds, keys, zipf, connections, host, port);
        scheduler.start();
        scheduler.join();
        for (Worker w : workers) {
            w.join();
        }
        report(workers, seconds, (long) rate * seconds);
        return 0;
    }

    private void report(Worker[] workers, int seconds, long scheduled) throws IOException {
        Histogram total = new Histogram(HIGHEST_NANOS, 3);
        long errors = 0;
        long done = 0;
        StringBuilder rows = new StringBuilder("second,gets_per_s,errors_per_s,p50_ms,p99_ms,max_ms\n");
        for (int s = 0; s < seconds; s++) {
            Histogram h = new Histogram(HIGHEST_NANOS, 3);
            long e = 0;
            for (Worker w : workers) {
                h.add(w.perSecond[s]);
                e += w.errorsPerSecond[s];
            }
            rows.append(String.format(Locale.ROOT, "%d,%d,%d,%s,%s,%s%n", s - warmupSeconds, h.getTotalCount(), e,
                    ms(h, 50), ms(h, 99), h.getTotalCount() == 0 ? "" : String.format(Locale.ROOT, "%.3f",
                            h.getMaxValue() / 1e6)));
            if (s >= warmupSeconds) {
                total.add(h);
                errors += e;
            }
        }
        for (Worker w : workers) {
            done += w.completed;
        }
        long lost = scheduled - done;
        long measured = total.getTotalCount();
        long overSlo = measured - total.getCountBetweenValues(0, TimeUnit.MILLISECONDS.toNanos(sloMillis));
        if (csv != null) {
            Files.writeString(csv, rows);
        }
        out.printf(Locale.ROOT, "result gets=%d gets_per_s=%.0f errors=%d not_sent=%d p50_ms=%.3f p99_ms=%.3f "
                        + "p999_ms=%.3f max_ms=%.3f over_slo=%d%n", measured, measured / (double) durationSeconds,
                errors, lost, total.getValueAtPercentile(50) / 1e6, total.getValueAtPercentile(99) / 1e6,
                total.getValueAtPercentile(99.9) / 1e6, total.getMaxValue() / 1e6, overSlo);
    }

    private static String ms(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? "" : String.format(Locale.ROOT, "%.3f", h.getValueAtPercentile(percentile) / 1e6);
    }

    /** One connection: takes due requests, GETs a Zipf key, records latency from the intended start. */
    private final class Worker extends Thread {
        private final OpenLoopSchedule schedule;
        private final ZipfKeys zipfKeys;
        private final SplittableRandom random;
        final Histogram[] perSecond;
        final long[] errorsPerSecond;
        long completed;

        Worker(int n, OpenLoopSchedule schedule, ZipfKeys zipfKeys, int seconds) {
            super("resp-open-loop-" + n);
            setDaemon(true);
            this.schedule = schedule;
            this.zipfKeys = zipfKeys;
            this.random = new SplittableRandom(0x5eed + n);
            this.perSecond = new Histogram[seconds];
            for (int s = 0; s < seconds; s++) {
                perSecond[s] = new Histogram(HIGHEST_NANOS, 2); // 2 digits: many workers x seconds fit a small heap
            }
            this.errorsPerSecond = new long[seconds];
        }

        @Override
        public void run() {
            try (Socket socket = new Socket(host, port)) {
                socket.setTcpNoDelay(true);
                OutputStream o = new BufferedOutputStream(socket.getOutputStream(), 256);
                InputStream in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
                byte[] body = new byte[valueSize];
                for (long i = schedule.next(); i >= 0; i = schedule.next()) {
                    byte[] key = String.format(keyFormat, zipfKeys.next(random)).getBytes(StandardCharsets.US_ASCII);
                    o.write(("*2\r\n$3\r\nGET\r\n$" + key.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                    o.write(key);
                    o.write('\r');
                    o.write('\n');
                    o.flush();
                    boolean ok = readBulk(in, body);
                    long end = System.nanoTime();
                    long intended = schedule.intendedStart(i);
                    int second = (int) Math.min(perSecond.length - 1,
                            Math.max(0, (intended - schedule.startNanos()) / LoadSteps.NANOS_PER_SECOND));
                    perSecond[second].recordValue(Math.min(HIGHEST_NANOS, Math.max(0, end - intended)));
                    completed++;
                    if (!ok) {
                        errorsPerSecond[second]++;
                    }
                }
            } catch (IOException e) {
                out.printf("connection %s: %s%n", getName(), e.getMessage());
                drain();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** The server is gone: take this worker's share of the remaining requests without sending them. */
        private void drain() {
            try {
                while (schedule.next() >= 0) {
                    // not sent: reported as not_sent
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** Reads one reply; true if it is a bulk string of {@code valueSize} bytes. */
        private boolean readBulk(InputStream in, byte[] body) throws IOException {
            int type = in.read();
            if (type < 0) {
                throw new IOException("the server closed the connection");
            }
            long n = readLineNumber(in, type);
            if (type != '$' || n < 0) {
                return false;
            }
            long left = n + 2;
            while (left > 0) {
                int r = in.read(body, 0, (int) Math.min(body.length, left));
                if (r < 0) {
                    throw new IOException("the server closed the connection in a reply");
                }
                left -= r;
            }
            return n == valueSize;
        }

        /** The rest of the reply's first line; its number for {@code $}, {@code :} and {@code *}, else 0. */
        private long readLineNumber(InputStream in, int type) throws IOException {
            long n = 0;
            boolean negative = false;
            for (int c = in.read(); c != '\n'; c = in.read()) {
                if (c < 0) {
                    throw new IOException("the server closed the connection in a reply");
                }
                if (type == '$' || type == ':' || type == '*') {
                    if (c == '-') {
                        negative = true;
                    } else if (c >= '0' && c <= '9') {
                        n = n * 10 + (c - '0');
                    }
                }
            }
            return negative ? -n : n;
        }
    }
}

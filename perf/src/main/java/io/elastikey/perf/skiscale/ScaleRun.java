// ScaleRun -- one measured run of the ski-scale matrix: which keys, which load, how long, and its targets.
package io.elastikey.perf.skiscale;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A run is one {@code loadgen ski} invocation; {@link #loadgenArgs} is its exact command line (also written to the
 * run's log, so any row of the results can be repeated by hand with {@code ./elastikey loadgen ski}).
 *
 * @param name      the run's directory and row name, e.g. {@code ecdsa-h2-closed-all-zipf}
 * @param group     which plot and table section it belongs to
 * @param operation what the server does, for people: {@code ECDSA P-256 SIGN}
 * @param method    the SKI method: {@code SIGN} (each key's own scheme) or {@code RSA}
 * @param keys      which keys, in which order
 * @param load      HTTP version, connections, closed or open loop
 * @param targets   what it must reach
 * @param baseline  for the ratio column: the name of the run whose rate this one is compared with, or null
 */
record ScaleRun(String name, Group group, String operation, String method, Keys keys, Load load, Duration duration,
                Duration warmup, Targets targets, String baseline) {

    /** The sections of the matrix; each gets one combined plot. */
    enum Group {
        CLOSED("closed-loop", "ECDSA P-256 SIGN, closed loop"),
        OPEN("open-loop", "ECDSA P-256 SIGN, open loop"),
        RSA("rsa", "RSA-2048 decryption"),
        RESTART("restart", "ECDSA P-256 SIGN, right after a restart");

        final String file;
        final String title;

        Group(String file, String title) {
            this.file = file;
            this.title = title;
        }
    }

    /**
     * @param file     the key list
     * @param count    how many keys the run uses
     * @param limit    {@code --key-limit}, or null for the whole list
     * @param order    {@code random} (uniform) or {@code zipf}
     * @param exponent the Zipf exponent (for {@code zipf})
     */
    record Keys(Path file, long count, Integer limit, String order, double exponent) {
        /** {@code first 1,000, uniform}, {@code uniform}, {@code zipf 1.1}. */
        String distribution() {
            String d = order.equals("zipf") ? "zipf " + exponent : "uniform";
            return limit != null ? "first " + String.format("%,d", limit) + ", " + d : d;
        }
    }

    /**
     * @param http        {@code 2} or {@code 1.1}
     * @param connections TLS connections
     * @param closedLoop  closed (a fixed number in flight) or open (a fixed rate) loop
     * @param concurrency closed loop: requests in flight
     * @param rate        open loop: requests per second
     */
    record Load(String http, int connections, boolean closedLoop, int concurrency, long rate) {
        /** {@code closed, 256 in flight} or {@code open, 21,000/s}. */
        String describe() {
            return closedLoop ? "closed, " + concurrency + " in flight" : String.format("open, %,d/s", rate);
        }
    }

    /** The options of {@code ./elastikey loadgen ski} for this run. */
    List<String> loadgenArgs(String target, Path pki, int verifySample, Path resultDirectory) {
        List<String> args = new ArrayList<>(List.of("--target", target, "--pki", pki.toString(),
                "--keys", keys.file().toString(), "--key-order", keys.order()));
        if (keys.limit() != null) {
            args.addAll(List.of("--key-limit", Integer.toString(keys.limit())));
        }
        if (keys.order().equals("zipf")) {
            args.addAll(List.of("--zipf-exponent", Double.toString(keys.exponent())));
        }
        args.addAll(List.of("--method", method, "--http", load.http(),
                "--connections", Integer.toString(load.connections())));
        if (load.closedLoop()) {
            args.addAll(List.of("--closed-loop", "--concurrency", Integer.toString(load.concurrency())));
        } else {
            args.addAll(List.of("--rate", Long.toString(load.rate())));
        }
        args.addAll(List.of("--duration", duration.toMillis() + "ms", "--warmup", warmup.toMillis() + "ms",
                "--verify-sample", Integer.toString(verifySample)));
        if (resultDirectory != null) {
            args.addAll(List.of("--result", resultDirectory.toString()));
        }
        return args;
    }

    /** One line for progress: what runs, on what, for how long. */
    String describe() {
        return String.format("%s, HTTP/%s, %d connection(s), %s, %,d keys (%s), %s after %s warm-up", operation,
                load.http(), load.connections(), load.describe(), keys.count(), keys.distribution(),
                human(duration), human(warmup));
    }

    static String human(Duration d) {
        long s = d.toSeconds();
        if (d.toMillis() % 1000 != 0) {
            return d.toMillis() + " ms";
        }
        return s >= 60 && s % 60 == 0 ? s / 60 + " min" : s + " s";
    }
}

// LoadOptions -- the options soak and chaos share: the unit of load, how the peak is measured, the share of it offered.
package io.elastikey.perf.soak;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;

import io.elastikey.perf.handshake.HandshakeLoad;
import io.elastikey.perf.ski.OptionConverters.DurationConverter;
import picocli.CommandLine.Option;

/**
 * The unit of load is one new connection through the edge: a full TLS 1.3 handshake (one ECDSA P-256 signature by a
 * key server) and one HTTP/1.1 GET of {@code --request} (default {@code /nostore}, which the edge may not cache, so
 * every GET also goes to the origin), then close. The peak is the closed loop's answers per second with
 * {@code --peak-concurrency} connections under way; the run then offers {@code --load-share} of it, open loop.
 */
final class LoadOptions {
    @Option(names = "--rate", paramLabel = "N",
            description = "Offer N connections per second and skip the peak measurement.")
    Long rate;

    @Option(names = "--load-share", paramLabel = "F", defaultValue = "0.8",
            description = "The share of the measured peak offered, open loop (default: ${DEFAULT-VALUE}).")
    double loadShare;

    @Option(names = "--peak-duration", paramLabel = "TIME", converter = DurationConverter.class,
            defaultValue = "20s", description = "How long the peak is measured (default: ${DEFAULT-VALUE}).")
    Duration peakDuration;

    @Option(names = "--peak-warmup", paramLabel = "TIME", converter = DurationConverter.class,
            defaultValue = "15s", description = "Closed-loop load before the peak is measured, unrecorded "
            + "(default: ${DEFAULT-VALUE}).")
    Duration peakWarmup;

    @Option(names = "--peak-concurrency", paramLabel = "N", defaultValue = "32",
            description = "Connections under way while measuring the peak (default: ${DEFAULT-VALUE}).")
    int peakConcurrency;

    @Option(names = "--request", paramLabel = "PATH", defaultValue = "/nostore",
            description = "GET after each handshake; 'none' for the handshake alone (default: ${DEFAULT-VALUE}).")
    String request;

    @Option(names = "--timeout-ms", paramLabel = "MS", defaultValue = "10000",
            description = "Client limit for the connect, the handshake and the GET, each (default: ${DEFAULT-VALUE}).")
    int timeoutMillis;

    @Option(names = "--progress-every", paramLabel = "S", defaultValue = "10",
            description = "A progress line every S seconds, and every second with a failure "
                    + "(default: ${DEFAULT-VALUE}).")
    int progressEvery;

    @Option(names = "--elastikey", paramLabel = "PATH",
            defaultValue = "${sys:elastikey.home:-${sys:user.dir}}/elastikey",
            description = "The launcher script that runs the servers (default: ${DEFAULT-VALUE}).")
    Path elastikey;

    String requestPath() {
        return request.equals("none") ? null : request;
    }

    String check() {
        if (rate != null && rate < 1) {
            return "--rate must be at least 1";
        }
        if (!(loadShare > 0 && loadShare <= 1)) {
            return "--load-share must be in (0, 1]";
        }
        if (peakDuration.toSeconds() < 1 || peakWarmup.isNegative()) {
            return "--peak-duration must be at least 1s and --peak-warmup not negative";
        }
        if (peakConcurrency < 1 || timeoutMillis < 1 || progressEvery < 1) {
            return "--peak-concurrency, --timeout-ms and --progress-every must be at least 1";
        }
        if (!request.equals("none") && !request.startsWith("/")) {
            return "--request must be a path starting with / or 'none'";
        }
        if (!java.nio.file.Files.isExecutable(elastikey)) {
            return elastikey + " is not the elastikey launcher script: run from the repository's root or give "
                    + "--elastikey";
        }
        return null;
    }

    /** The rate to offer: --rate, or the measured peak times --load-share (the peak goes into {@code peak[0]}). */
    long offeredRate(HandshakeLoad load, PrintStream out, double[] peak) throws InterruptedException {
        if (rate != null) {
            out.printf("load: %,d connections/s as given (--rate), no peak measured%n", rate);
            return rate;
        }
        out.printf("peak: closed loop, %d connections under way, %s unrecorded then %s measured...%n",
                peakConcurrency, human(peakWarmup), human(peakDuration));
        HandshakeLoad.Phase phase = load.closedLoopRate(peakConcurrency, peakWarmup, peakDuration);
        peak[0] = phase.rate();
        long offered = Math.max(1, Math.round(phase.rate() * loadShare));
        out.printf("peak: %,.0f connections/s (%,d answered, failures %s); offering %.0f%% of it: %,d/s%n",
                phase.rate(), phase.answered(), phase.errors().isEmpty() ? "none" : phase.errors(),
                loadShare * 100, offered);
        return offered;
    }

    static String human(Duration d) {
        long s = d.toSeconds();
        return s >= 60 && s % 60 == 0 ? s / 60 + " min" : s >= 60 ? String.format("%d min %d s", s / 60, s % 60)
                : s + " s";
    }
}

// KeyServerProcess -- the key server under test as its own process: started, awaited, sampled between runs, stopped.
package io.elastikey.perf.skiscale;

import io.elastikey.perf.ProcessFacts;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs {@code ./elastikey keyserver} the way an operator would, so that what is measured is the real server
 * process, with its own JVM, heap and GC, on its own data directory. Its JVM gets {@code -Xlog:gc*} into
 * {@code keyserver-gc.log} and a logback configuration that sends the audit trail (one JSON line per request) to a
 * size-capped rolling file, as docs/authorization.md recommends, instead of the console: a run of millions of
 * requests would otherwise write gigabytes into {@code keyserver.log}, which keeps everything else the server says.
 *
 * <p>Between runs {@link #sample()} reads {@code VmRSS} and {@code VmHWM} from {@code /proc/PID/status} (the launcher
 * script {@code exec}s java, so the child's pid is the JVM's), scrapes {@code /metrics}, and counts the GC pauses
 * logged since the previous sample. {@link #close()} sends SIGTERM (the server's shutdown hook closes the store) and
 * waits, then kills.
 */
public final class KeyServerProcess implements AutoCloseable {
    private static final Pattern GC_PAUSE = Pattern.compile("\\]\\[gc\\s*\\] GC\\(\\d+\\) Pause .* ([0-9.]+)ms\\s*$");
    private static final Duration STOP_WAIT = Duration.ofSeconds(60);

    private final Process process;
    private final long startedNanos;
    private final int port;
    private final int adminPort;
    private final Path gcLog;
    private final Path log;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private long gcLogOffset;

    private KeyServerProcess(Process process, long startedNanos, int port, int adminPort, Path gcLog, Path log) {
        this.process = process;
        this.startedNanos = startedNanos;
        this.port = port;
        this.adminPort = adminPort;
        this.gcLog = gcLog;
        this.log = log;
    }

    /**
     * Starts the key server on {@code dataDir}, SKI on 127.0.0.1:{@code port} and admin on {@code adminPort} (0: a
     * free port each), its output into {@code outDir/<name>.log} and its GC log into {@code outDir/<name>-gc.log}.
     *
     * @param settings  more {@code --set NAME=VALUE} settings, after the ones made here
     * @param javaOpts  more JVM options, after the GC log and logback ones
     */
    static KeyServerProcess start(Path elastikey, Path dataDir, long expectedKeys, int port, int adminPort,
                                  List<String> settings, String javaOpts, Path outDir, String name)
            throws IOException {
        int skiPort = port > 0 ? port : freePort();
        int admin = adminPort > 0 ? adminPort : freePort();
        Path gcLog = outDir.resolve(name + "-gc.log").toAbsolutePath();
        Path logback = writeLogbackConfig(outDir);
        Path log = outDir.resolve(name + ".log");
        // --dev: the data set's keys come with the development PKI, whose client the load generator presents.
        List<String> command = new ArrayList<>(List.of(elastikey.toString(), "keyserver", "--dev",
                "--data", dataDir.toString(), "--set", "keys.expected=" + expectedKeys,
                "--set", "listen=127.0.0.1:" + skiPort, "--set", "admin.listen=127.0.0.1:" + admin,
                "--set", "keyless.listen=off"));
        settings.forEach(setting -> command.addAll(List.of("--set", setting)));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().put("ELASTIKEY_JAVA_OPTS", ("-Xlog:gc*:file=" + gcLog + " -Dlogback.configurationFile="
                + logback.toAbsolutePath() + " " + javaOpts).strip());
        long started = System.nanoTime();
        Process process = builder.start();
        return new KeyServerProcess(process, started, skiPort, admin, gcLog, log);
    }

    /**
     * Waits until {@code /readyz} answers 200; returns the time from the process start. Includes the launcher
     * script's build check and the JVM's start, as an operator's restart would.
     *
     * @throws IOException when the process exits first or {@code timeout} passes, with the end of its log
     */
    Duration awaitReady(Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        HttpRequest readyz = HttpRequest.newBuilder(adminUri("/readyz")).timeout(Duration.ofSeconds(2)).build();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("the key server exited with status " + process.exitValue() + "; the end of "
                        + log + ":\n" + ProcessFacts.tail(log, 20));
            }
            try {
                if (http.send(readyz, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return Duration.ofNanos(System.nanoTime() - startedNanos);
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(50);
        }
        throw new IOException("the key server was not ready within " + timeout.toSeconds() + " s; the end of " + log
                + ":\n" + ProcessFacts.tail(log, 20));
    }

    /** Memory, metrics and GC pauses now; what cannot be read is left out, never an error. */
    ServerSample sample() throws InterruptedException {
        long[] memory = memory();
        Map<String, Double> metrics = Map.of();
        try {
            HttpRequest request = HttpRequest.newBuilder(adminUri("/metrics")).timeout(Duration.ofSeconds(10)).build();
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() == 200) {
                metrics = ServerSample.parseMetrics(response.body());
            }
        } catch (IOException e) {
            // the server is gone or busy: the sample says "-"
        }
        double[] gc = gcPausesSinceLastSample();
        return new ServerSample(memory[0], memory[1], metrics, (int) gc[0], gc[1], gc[2]);
    }

    /** When the process was started ({@link System#nanoTime}, this JVM's clock). */
    long startedNanos() {
        return startedNanos;
    }

    int port() {
        return port;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    Path gcLog() {
        return gcLog;
    }

    Path log() {
        return log;
    }

    /** {VmRSS, VmHWM} in KiB, -1 where unreadable. */
    private long[] memory() {
        return ProcessFacts.memoryKib(process.pid());
    }

    /** {count, longest ms, total ms} of the pause lines appended to the GC log since the last call. */
    private double[] gcPausesSinceLastSample() {
        double[] pauses = {0, 0, 0};
        if (!Files.exists(gcLog)) {
            return pauses;
        }
        try (RandomAccessFile file = new RandomAccessFile(gcLog.toFile(), "r")) {
            long length = file.length();
            if (length < gcLogOffset) {
                gcLogOffset = 0; // rotated or truncated
            }
            byte[] added = new byte[(int) Math.min(Integer.MAX_VALUE - 16, length - gcLogOffset)];
            file.seek(gcLogOffset);
            file.readFully(added);
            String text = new String(added, StandardCharsets.ISO_8859_1);
            int lastNewline = text.lastIndexOf('\n');
            gcLogOffset += lastNewline + 1; // a line still being written is read next time
            for (String line : text.substring(0, lastNewline + 1).split("\n")) {
                Matcher pause = GC_PAUSE.matcher(line);
                if (pause.find()) {
                    double ms = Double.parseDouble(pause.group(1));
                    pauses[0]++;
                    pauses[1] = Math.max(pauses[1], ms);
                    pauses[2] += ms;
                }
            }
        } catch (IOException | RuntimeException e) {
            // leave the counts at what was read
        }
        return pauses;
    }

    private URI adminUri(String path) {
        return URI.create("http://127.0.0.1:" + adminPort + path);
    }

    @Override
    public void close() throws InterruptedException {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        if (!process.waitFor(STOP_WAIT.toSeconds(), TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /**
     * The server's logback configuration: everything to stderr as the launcher's, the audit trail to a file. Also
     * what the soak and chaos runs give their key servers ({@code -Dlogback.configurationFile}).
     */
    public static Path writeLogbackConfig(Path outDir) throws IOException {
        Path audit = outDir.resolve("audit").toAbsolutePath();
        Files.createDirectories(audit);
        String xml = """
                <configuration>
                  <!-- Written by ./elastikey bench ski-scale: the launcher's logging, with the audit trail in a
                       rolling file capped at 3 x 256 MB instead of on the console. -->
                  <appender name="STDERR" class="ch.qos.logback.core.ConsoleAppender">
                    <target>System.err</target>
                    <encoder><pattern>%%d{HH:mm:ss.SSS} %%-5level %%logger{24} - %%msg%%n</pattern></encoder>
                  </appender>
                  <appender name="AUDIT" class="ch.qos.logback.core.rolling.RollingFileAppender">
                    <file>%1$s/audit.jsonl</file>
                    <rollingPolicy class="ch.qos.logback.core.rolling.FixedWindowRollingPolicy">
                      <fileNamePattern>%1$s/audit.%%i.jsonl</fileNamePattern>
                      <minIndex>1</minIndex>
                      <maxIndex>2</maxIndex>
                    </rollingPolicy>
                    <triggeringPolicy class="ch.qos.logback.core.rolling.SizeBasedTriggeringPolicy">
                      <maxFileSize>256MB</maxFileSize>
                    </triggeringPolicy>
                    <immediateFlush>false</immediateFlush>
                    <encoder><pattern>%%msg%%n</pattern></encoder>
                  </appender>
                  <logger name="elastikey.audit" level="INFO" additivity="false"><appender-ref ref="AUDIT"/></logger>
                  <logger name="net.openhft" level="WARN"/>
                  <logger name="io.elastikey.store" level="WARN"/>
                  <root level="INFO"><appender-ref ref="STDERR"/></root>
                </configuration>
                """.formatted(audit);
        Path file = outDir.resolve("keyserver-logback.xml");
        Files.writeString(file, xml);
        return file;
    }

}

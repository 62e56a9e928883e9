// SuiteProcess -- one server of the suite (or Redis) as a child process: started, awaited, sampled, signalled, stopped.
package io.elastikey.perf.soak;

import io.elastikey.perf.ProcessFacts;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The soak and chaos runs measure the servers as an operator runs them: {@code ./elastikey keyserver}, {@code edge},
 * {@code origin}, {@code store serve} and {@code redis-server}, each its own process with its own log file in the
 * output directory. The launcher script {@code exec}s java, so the child's pid is the JVM's, and {@code /proc/PID}
 * describes the server itself: {@link #rssKib()} reads {@code VmRSS} of {@code status}, {@link #openFds()} counts the
 * entries of {@code fd}.
 *
 * <p>Chaos needs the signals an operator's bad day brings: {@link #kill()} is SIGKILL, {@link #pause()} and
 * {@link #resume()} are SIGSTOP and SIGCONT (sent with {@code kill(1)}: Java has no API for them). {@link #close()}
 * is SIGTERM, then SIGKILL after a minute.
 */
final class SuiteProcess implements AutoCloseable {
    private static final Duration STOP_WAIT = Duration.ofSeconds(60);

    private final String name;
    private final Process process;
    private final Path log;
    private final long logStart;

    private SuiteProcess(String name, Process process, Path log, long logStart) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.logStart = logStart;
    }

    /**
     * Starts {@code command}, its output (both streams) appended to {@code log}.
     *
     * @param environment more environment variables, e.g. {@code ELASTIKEY_JAVA_OPTS}
     */
    static SuiteProcess start(String name, List<String> command, Map<String, String> environment, Path log)
            throws IOException {
        Files.writeString(log, "$ " + String.join(" ", command) + "\n", StandardCharsets.UTF_8,
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().putAll(environment);
        long logStart = Files.size(log); // a restart appends to the same log: its "ready" line comes after this
        return new SuiteProcess(name, builder.start(), log, logStart);
    }

    /**
     * Waits until this process has written {@code text} (a server's "ready" line) into its log.
     *
     * @throws IOException when the process exits first or {@code timeout} passes, with the end of its log
     */
    SuiteProcess awaitLog(String text, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.readString(log, StandardCharsets.ISO_8859_1).substring((int) logStart).contains(text)) {
                return this;
            }
            if (!process.isAlive()) {
                throw new IOException(name + " exited with status " + process.exitValue() + " before saying '" + text
                        + "'; the end of " + log + ":\n" + ProcessFacts.tail(log, 20));
            }
            Thread.sleep(100);
        }
        throw new IOException(name + " did not say '" + text + "' within " + timeout.toSeconds() + " s; the end of "
                + log + ":\n" + ProcessFacts.tail(log, 20));
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    Path log() {
        return log;
    }

    /** {@code VmRSS} in KiB, or -1 when the process is gone (or this is not Linux). */
    long rssKib() {
        return ProcessFacts.memoryKib(pid())[0];
    }

    /** Open file descriptors, or -1 when the process is gone. */
    int openFds() {
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid()), "fd"))) {
            return (int) fds.count();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** SIGKILL, and waits for the process to be gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /** SIGSTOP: the process keeps its sockets open and answers nothing. */
    void pause() throws IOException, InterruptedException {
        signal("STOP");
    }

    /** SIGCONT. */
    void resume() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-s", signal, Long.toString(pid())).redirectErrorStream(true)
                .start();
        if (kill.waitFor() != 0) {
            throw new IOException("kill -s " + signal + " " + pid() + " (" + name + ") failed: "
                    + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip());
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (!process.isAlive()) {
            return;
        }
        try {
            resume(); // a stopped process does not act on SIGTERM
        } catch (IOException e) {
            // gone meanwhile
        }
        process.destroy();
        if (!process.waitFor(STOP_WAIT.toSeconds(), TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }

}

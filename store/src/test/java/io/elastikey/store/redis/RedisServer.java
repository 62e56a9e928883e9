// RedisServer -- one real redis-server (or Sentinel) process on a loopback port, for tests.
package io.elastikey.store.redis;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A redis-server process started from a generated config file in its own directory (no RDB, no AOF). It can be
 * killed with SIGKILL and started again on the same port with the same config. {@link #close()} kills it and
 * waits; a JVM shutdown hook kills any process a test forgot, so none outlives the test JVM.
 */
public final class RedisServer implements AutoCloseable {
    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly),
                "redis-server-reaper"));
    }

    private final Path dir;
    private final Path config;
    private final int port;
    private final boolean sentinel;
    private final String readyLine;
    private Process process;

    RedisServer(Path dir, int port, List<String> configLines, boolean sentinel, String readyLine) throws IOException {
        this.dir = Files.createDirectories(dir);
        this.port = port;
        this.sentinel = sentinel;
        this.readyLine = readyLine;
        this.config = dir.resolve(sentinel ? "sentinel.conf" : "redis.conf");
        List<String> lines = new ArrayList<>(List.of("bind 127.0.0.1", "dir " + dir, "save \"\"", "appendonly no",
                "daemonize no", "logfile \"\""));
        if (sentinel) {
            lines.removeIf(l -> l.startsWith("save") || l.startsWith("appendonly"));
        }
        lines.addAll(configLines);
        if (configLines.stream().noneMatch(l -> l.startsWith("port "))) {
            lines.add("port " + port);
        }
        Files.write(config, lines);
    }

    /** Starts the process and waits until it is ready; fails with the tail of its log when it is not. */
    public RedisServer start() throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(RedisServers.executable("redis-server").toString(),
                config.toString()));
        if (sentinel) {
            command.add("--sentinel");
        }
        Path logFile = dir.resolve("redis.log");
        Files.deleteIfExists(logFile);
        process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(logFile.toFile()).start();
        LIVE.add(process);
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!ready(logFile)) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                String log = Files.exists(logFile) ? Files.readString(logFile) : "";
                close();
                throw new IOException("redis-server on port " + port + " did not start; its log:\n" + tail(log));
            }
            Thread.sleep(20);
        }
        return this;
    }

    private boolean ready(Path logFile) throws IOException {
        if (readyLine != null) {
            return Files.exists(logFile) && Files.readString(logFile).contains(readyLine);
        }
        String reply = command("PING");
        return reply != null && (reply.startsWith("+PONG") || reply.startsWith("-NOAUTH"));
    }

    /** Sends one inline command over plain TCP; the first reply line, or {@code null} when nobody answers. */
    public String command(String inline) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(2000);
            OutputStream out = socket.getOutputStream();
            out.write((inline + "\r\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            return new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8))
                    .readLine();
        } catch (IOException e) {
            return null;
        }
    }

    /** Runs {@code redis-cli -p port ARGS...} (plain TCP) and returns its output. */
    public String cli(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(RedisServers.executable("redis-cli").toString(),
                "-h", "127.0.0.1", "-p", Integer.toString(port)));
        command.addAll(List.of(args));
        return RedisServers.run(command);
    }

    public int port() {
        return port;
    }

    public Path dir() {
        return dir;
    }

    /** {@code redis://127.0.0.1:port}. */
    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** SIGKILL, then waits until the process is gone. */
    public void kill() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly();
            process.waitFor();
            LIVE.remove(process);
        }
    }

    /** Starts the server again with the same config and port (after {@link #kill()}). */
    public RedisServer restart() throws IOException, InterruptedException {
        kill();
        return start();
    }

    @Override
    public void close() {
        try {
            kill();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String tail(String log) {
        String[] lines = log.split("\n");
        return String.join("\n", java.util.Arrays.copyOfRange(lines, Math.max(0, lines.length - 15), lines.length));
    }
}

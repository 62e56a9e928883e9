// RespOpenLoopGetTest -- the past-RAM experiment's open-loop client against a real redis-server over loopback.
package io.elastikey.perf.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Runs {@code loadgen resp} against Debian's {@code redis-server} (which {@code ./elastikey test} installs; skipped
 * where it is missing) holding {@link #KEYS} values of 4 KiB: every scheduled GET is sent and answered, a GET of a
 * missing key counts as an error, and a server killed mid-run ends the run with the rest counted, not a hang.
 */
class RespOpenLoopGetTest {
    private static final int KEYS = 500;
    private static final int VALUE_SIZE = 4096;

    @TempDir
    Path dir;
    private Process redis;
    private int port;

    @BeforeEach
    void startRedis() throws Exception {
        Path exe = Path.of("/usr/bin/redis-server");
        assumeTrue(Files.isExecutable(exe), "redis-server is not installed");
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        redis = new ProcessBuilder(exe.toString(), "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", dir.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try (Socket s = new Socket("127.0.0.1", port)) {
                load(s);
                break;
            } catch (IOException notYet) {
                assertThat(System.nanoTime()).as("redis-server listening").isLessThan(deadline);
                Thread.sleep(50);
            }
        }
    }

    @AfterEach
    void stopRedis() throws InterruptedException {
        if (redis != null) {
            redis.destroyForcibly();
            redis.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void everyScheduledGetIsAnsweredWithItsValue() {
        Map<String, Long> r = run("--keys", Integer.toString(KEYS), "--rate", "2000", "--duration", "2",
                "--warmup", "1", "--connections", "8", "--threads", "2", "--csv", dir.resolve("run.csv").toString());
        assertThat(r.get("gets")).isEqualTo(4000); // the measured 2 s; the warm-up's 2,000 are not in it
        assertThat(r.get("errors")).isZero();
        assertThat(r.get("not_sent")).isZero();
        assertThat(redisGets()).isEqualTo(6000);
    }

    @Test
    void aMissingKeyIsAnError() {
        // keys 0..2*KEYS-1 asked for, only the first KEYS exist: about half of the GETs find nothing
        Map<String, Long> r = run("--keys", Integer.toString(2 * KEYS), "--zipf", "0.01", "--rate", "2000",
                "--duration", "1", "--warmup", "0", "--connections", "4");
        assertThat(r.get("gets")).isEqualTo(2000);
        assertThat(r.get("errors")).isBetween(700L, 1300L);
        assertThat(r.get("not_sent")).isZero();
    }

    @Test
    void aServerKilledMidRunEndsTheRunWithTheRestCounted() throws Exception {
        Thread killer = new Thread(() -> {
            try {
                Thread.sleep(1500);
                redis.destroyForcibly();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        killer.start();
        long start = System.nanoTime();
        Map<String, Long> r = run("--keys", Integer.toString(KEYS), "--rate", "2000", "--duration", "3",
                "--warmup", "0", "--connections", "4");
        killer.join();
        assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start)).as("no wait for replies that cannot come")
                .isLessThan(30);
        assertThat(r.get("gets")).isBetween(1000L, 5000L);
        assertThat(r.get("not_sent") + r.get("errors")).isGreaterThan(0);
    }

    /** Runs the command, returns the numbers of its {@code result} line. */
    private Map<String, Long> run(String... args) {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream old = System.out;
        int code;
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            List<String> all = new java.util.ArrayList<>(List.of("--port", Integer.toString(port)));
            all.addAll(List.of(args));
            code = new CommandLine(new RespOpenLoopGet()).execute(all.toArray(new String[0]));
        } finally {
            System.setOut(old);
        }
        String text = captured.toString(StandardCharsets.UTF_8);
        assertThat(code).as(text).isZero();
        Matcher m = Pattern.compile("result (.*)").matcher(text);
        assertThat(m.find()).as(text).isTrue();
        Map<String, Long> numbers = new HashMap<>();
        for (String pair : m.group(1).trim().split(" ")) {
            String[] kv = pair.split("=");
            numbers.put(kv[0], (long) Double.parseDouble(kv[1]));
        }
        return numbers;
    }

    /** SETs key:000000000000 ... with 4 KiB values, pipelined, every reply checked. */
    private static void load(Socket s) throws IOException {
        OutputStream out = s.getOutputStream();
        ByteArrayOutputStream burst = new ByteArrayOutputStream();
        byte[] value = new byte[VALUE_SIZE];
        java.util.Arrays.fill(value, (byte) 'v');
        for (int i = 0; i < KEYS; i++) {
            byte[] key = String.format("key:%012d", i).getBytes(StandardCharsets.US_ASCII);
            burst.writeBytes(("*3\r\n$3\r\nSET\r\n$" + key.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            burst.writeBytes(key);
            burst.writeBytes(("\r\n$" + VALUE_SIZE + "\r\n").getBytes(StandardCharsets.US_ASCII));
            burst.writeBytes(value);
            burst.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        out.write(burst.toByteArray());
        out.flush();
        InputStream in = s.getInputStream();
        byte[] ok = "+OK\r\n".getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < KEYS; i++) {
            byte[] reply = in.readNBytes(ok.length);
            assertThat(reply).isEqualTo(ok);
        }
    }

    /** GET calls redis-server counted ({@code INFO commandstats}). */
    private long redisGets() {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.getOutputStream().write("*2\r\n$4\r\nINFO\r\n$12\r\ncommandstats\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            byte[] buf = new byte[65536];
            int n = s.getInputStream().read(buf);
            Matcher m = Pattern.compile("cmdstat_get:calls=(\\d+)")
                    .matcher(new String(buf, 0, n, StandardCharsets.US_ASCII));
            return m.find() ? Long.parseLong(m.group(1)) : 0;
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}

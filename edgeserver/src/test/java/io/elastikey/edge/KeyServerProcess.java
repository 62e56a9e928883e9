package io.elastikey.edge;

import io.elastikey.keyserver.KeyServer;
import io.elastikey.store.elastic.ChildJvm;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A key server in a JVM of its own, so a test can SIGKILL it mid-run. Its {@link #main} starts the server on a
 * free port and prints {@code READY <port> <admin port>}; the parent reads that line and then only watches.
 */
final class KeyServerProcess implements AutoCloseable {
    private final Process process;
    private final InetSocketAddress address;
    private final InetSocketAddress adminAddress;

    private KeyServerProcess(Process process, int port, int adminPort) {
        this.process = process;
        this.address = new InetSocketAddress("127.0.0.1", port);
        this.adminAddress = new InetSocketAddress("127.0.0.1", adminPort);
    }

    static KeyServerProcess start(Path data, Path log) throws IOException, InterruptedException {
        var command = ChildJvm.command(ChildJvm.buildJvmFlags(), KeyServerProcess.class, data.toString());
        Process process = new ProcessBuilder(command).redirectError(log.toFile()).start();
        BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
        // The JVM prints its own warnings to stdout (unified logging: "[warning][os,thread] ..."): kept for the
        // error, not taken for the server's answer.
        StringBuilder before = new StringBuilder();
        String line = lines.readLine();
        while (line != null && !line.startsWith("READY ")) {
            before.append(line).append('\n');
            line = lines.readLine();
        }
        if (line == null) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new IOException("key server process did not start (exit " + process.exitValue() + "); its stdout:\n"
                    + before + "its log:\n" + Files.readString(log));
        }
        String[] parts = line.split(" ");
        return new KeyServerProcess(process, Integer.parseInt(parts[1]), Integer.parseInt(parts[2]));
    }

    InetSocketAddress address() {
        return address;
    }

    InetSocketAddress adminAddress() {
        return adminAddress;
    }

    /** SIGKILL: no shutdown hook runs, connections drop mid-request. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            kill();
        }
    }

    public static void main(String[] args) throws Exception {
        KeyServer server = KeyServer.start(EdgeFixture.keyServerConfig(Path.of(args[0]), 0));
        Runtime.getRuntime().addShutdownHook(new Thread(server::close));
        System.out.println("READY " + server.address().getPort() + " " + server.adminAddress().getPort());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}

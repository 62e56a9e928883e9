package io.elastikey.edge;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the command-line TLS clients the edge must serve, curl and {@code openssl s_client}. Both are installed
 * by {@code ./elastikey test} when missing; a test run without them fails and says so.
 */
final class Tools {
    private Tools() {
    }

    record Result(int exitCode, String output) {
    }

    static Result run(List<String> command) throws IOException, InterruptedException {
        return run(command, null);
    }

    /** Runs {@code command}, feeding it {@code input}; a guard kills it after 60 s (not a timing check). */
    static Result run(List<String> command, String input) throws IOException, InterruptedException {
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IOException(command.get(0) + " is not installed here; ./elastikey test installs it", e);
        }
        if (input != null) {
            process.getOutputStream().write(input.getBytes(StandardCharsets.US_ASCII));
            process.getOutputStream().flush();
        }
        byte[] output = process.getInputStream().readAllBytes();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(command + " did not finish");
        }
        return new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8));
    }

    /**
     * {@code openssl s_client} to the edge with {@code serverName} as SNI ({@code null}: none), sending one HTTP/1.1
     * GET of /hello; {@code sessionOut} / {@code sessionIn} save and offer a session for resumption.
     */
    static Result sClient(EdgeFixture suite, EdgeServer edge, String serverName, String version, String cipher,
                          String sessionOut, String sessionIn) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("openssl", "s_client", "-connect",
                "127.0.0.1:" + edge.address().getPort(), version, "-alpn", "http/1.1", "-ign_eof",
                "-CAfile", suite.pki().directory().resolve("ca.pem").toString()));
        command.add(serverName == null ? "-noservername" : "-servername");
        if (serverName != null) {
            command.add(serverName);
        }
        if (cipher != null) {
            command.addAll(List.of("-cipher", cipher));
        }
        if (sessionOut != null) {
            command.addAll(List.of("-sess_out", sessionOut));
        }
        if (sessionIn != null) {
            command.addAll(List.of("-sess_in", sessionIn));
        }
        return run(command, "GET /hello HTTP/1.1\r\nHost: " + (serverName == null ? "localhost" : serverName)
                + "\r\nConnection: close\r\n\r\n");
    }
}

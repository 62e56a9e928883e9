// FakeAgent -- a scripted scale-up agent on a temporary Unix socket, for the JNI client's tests.
package io.elastikey.scaleup.jni;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Accepts connections on a fresh socket path; for each, reads the request line, records it, and sends what the
 * script returns for it as raw bytes ({@code null}: never answers and waits for the caller to hang up). Each
 * connection has its own thread, so concurrent callers are served concurrently.
 */
final class FakeAgent implements AutoCloseable {

    private static final Pattern CLIENT = Pattern.compile("\"client\":\"([^\"]*)\"");
    private static final Pattern MEMORY = Pattern.compile("\"memory_mb\":(\\d+)");

    private final Path dir;
    private final Path path;
    private final ServerSocketChannel server;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "fake-agent");
        t.setDaemon(true);
        return t;
    });
    private final BlockingQueue<String> requests = new LinkedBlockingQueue<>();
    private final Function<String, byte[]> script;
    private final boolean hangUp;

    private FakeAgent(Function<String, byte[]> script, boolean hangUp) throws IOException {
        this.script = script;
        this.hangUp = hangUp;
        this.dir = Files.createTempDirectory("scaleup-jni");
        this.path = dir.resolve("agent.sock");
        this.server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(path));
        threads.execute(this::acceptLoop);
    }

    /** Answers every request with line, sent as it is (add the '\n' yourself). */
    static FakeAgent answering(String line) throws IOException {
        byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
        return new FakeAgent(request -> bytes, false);
    }

    /** Answers "granted" with the request's client, and its memory_mb as granted_mb. */
    static FakeAgent echo() throws IOException {
        return new FakeAgent(FakeAgent::echoAnswer, false);
    }

    /** Reads requests and never answers. */
    static FakeAgent silent() throws IOException {
        return new FakeAgent(request -> null, false);
    }

    /** Closes every connection at once. */
    static FakeAgent hangingUp() throws IOException {
        return new FakeAgent(request -> null, true);
    }

    static String answer(String status, String client, long grantedMb, long poolFreeMb, long elapsedUs,
                         String messageJson) {
        return "{\"status\":\"" + status + "\",\"client\":\"" + client + "\",\"granted_mb\":" + grantedMb
                + ",\"pool_free_mb\":" + poolFreeMb + ",\"elapsed_us\":" + elapsedUs + ",\"message\":" + messageJson
                + "}\n";
    }

    Path path() {
        return path;
    }

    /** The next request line received (with its '\n'), waiting for it (a bound only so a bug cannot hang the build). */
    String nextRequest() throws InterruptedException {
        String request = requests.poll(60, TimeUnit.SECONDS);
        if (request == null) {
            throw new AssertionError("no request reached the agent");
        }
        return request;
    }

    private static byte[] echoAnswer(String request) {
        Matcher client = CLIENT.matcher(request);
        Matcher memory = MEMORY.matcher(request);
        String name = client.find() ? client.group(1) : "";
        long mb = memory.find() ? Long.parseLong(memory.group(1)) : 0;
        return answer("granted", name, mb, 1, 2, "\"echo\"").getBytes(StandardCharsets.UTF_8);
    }

    private void acceptLoop() {
        try {
            while (true) {
                SocketChannel ch = server.accept();
                threads.execute(() -> serve(ch));
            }
        } catch (IOException | RuntimeException closed) {
            // close() closed the server socket (or the executor): done.
        }
    }

    private void serve(SocketChannel ch) {
        try (ch; InputStream in = Channels.newInputStream(ch); OutputStream out = Channels.newOutputStream(ch)) {
            if (hangUp) {
                return;
            }
            String request = readLine(in);
            requests.add(request);
            byte[] answer = script.apply(request);
            if (answer == null) {
                in.transferTo(OutputStream.nullOutputStream());
            } else {
                out.write(answer);
            }
        } catch (IOException e) {
            // The caller hung up (timeouts, oversized answers): expected.
        }
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0) {
            line.write(b);
            if (b == '\n') {
                break;
            }
        }
        return line.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException {
        server.close();
        threads.shutdownNow();
        Files.deleteIfExists(path);
        Files.deleteIfExists(dir);
    }
}

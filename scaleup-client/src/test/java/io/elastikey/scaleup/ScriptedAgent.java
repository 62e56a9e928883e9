// ScriptedAgent -- a fake scaleupd that answers every request line with scripted bytes, or not at all.
package io.elastikey.scaleup;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * Listens on a Unix socket with the JDK's channels; for each connection reads one request line and writes what
 * {@code script} returns for it: {@code null} means stay silent (the connection is held open until {@link #close}),
 * anything else is written and the connection closed. For the clients' failure modes a real agent never shows.
 */
public final class ScriptedAgent implements AutoCloseable {
    private final ServerSocketChannel server;
    private final Path path;
    private final List<SocketChannel> held = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    public ScriptedAgent(Path path, Function<String, byte[]> script) throws IOException {
        this.path = path;
        Files.deleteIfExists(path);
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(path));
        acceptor = new Thread(() -> acceptLoop(script), "scripted-agent");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public Path path() {
        return path;
    }

    private void acceptLoop(Function<String, byte[]> script) {
        while (server.isOpen()) {
            try {
                SocketChannel ch = server.accept();
                String line = readLine(ch);
                byte[] answer = script.apply(line);
                if (answer == null) {
                    held.add(ch);
                    continue;
                }
                ByteBuffer out = ByteBuffer.wrap(answer);
                while (out.hasRemaining()) {
                    ch.write(out);
                }
                ch.close();
            } catch (IOException e) {
                // closed, or a client that went away: next
            }
        }
    }

    /** One request line, decoded as UTF-8, without its '\n'. */
    private static String readLine(SocketChannel ch) throws IOException {
        java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream();
        ByteBuffer one = ByteBuffer.allocate(1);
        while (ch.read(one) > 0) {
            byte b = one.get(0);
            if (b == '\n') {
                break;
            }
            line.write(b);
            one.clear();
        }
        return line.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (SocketChannel ch : held) {
            ch.close();
        }
        Files.deleteIfExists(path);
    }
}

// RawConnection -- a test's byte-level connection to the agent: send anything, read answer lines.
package io.elastikey.scaleup.agent.net;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A reader thread queues each answer line; {@link #EOF} marks the agent closing the connection. */
final class RawConnection implements AutoCloseable {
    static final String EOF = "<eof>";
    private static final long GUARD_SECONDS = 30; // a hang guard, not a timing check

    private final SocketChannel ch;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    RawConnection(Path socket) throws IOException {
        ch = SocketChannel.open(StandardProtocolFamily.UNIX);
        ch.connect(UnixDomainSocketAddress.of(socket));
        Thread reader = new Thread(this::readLoop, "raw-reader");
        reader.setDaemon(true);
        reader.start();
    }

    private void readLoop() {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        ByteBuffer buf = ByteBuffer.allocate(8192);
        try {
            while (ch.read(buf) >= 0) {
                buf.flip();
                while (buf.hasRemaining()) {
                    byte b = buf.get();
                    if (b == '\n') {
                        lines.add(line.toString(StandardCharsets.UTF_8));
                        line.reset();
                    } else {
                        line.write(b);
                    }
                }
                buf.clear();
            }
        } catch (IOException e) {
            // reset by the agent: same as EOF here
        }
        lines.add(EOF);
    }

    RawConnection send(byte[] bytes) throws IOException {
        ByteBuffer out = ByteBuffer.wrap(bytes);
        while (out.hasRemaining()) {
            ch.write(out);
        }
        return this;
    }

    RawConnection send(String text) throws IOException {
        return send(text.getBytes(StandardCharsets.UTF_8));
    }

    /** The next answer line, or {@link #EOF}. */
    String next() throws InterruptedException {
        String line = lines.poll(GUARD_SECONDS, TimeUnit.SECONDS);
        if (line == null) {
            throw new AssertionError("no answer and no close after " + GUARD_SECONDS + " s");
        }
        return line;
    }

    void shutdownOutput() throws IOException {
        ch.shutdownOutput();
    }

    @Override
    public void close() throws IOException {
        ch.close();
    }
}

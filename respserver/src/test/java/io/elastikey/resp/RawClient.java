// RawClient -- a RESP client over a plain socket, for tests that need exact bytes on the wire.
package io.elastikey.resp;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes commands or raw bytes and reads replies as Java values: simple strings as {@link String},
 * errors as {@link Error}, integers as {@link Long}, bulk strings as {@code byte[]} (null for the
 * null bulk), arrays as {@link List}.
 */
final class RawClient implements AutoCloseable {
    record Error(String text) {
    }

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;

    RawClient(InetSocketAddress address) throws IOException {
        socket = new Socket(address.getAddress(), address.getPort());
        socket.setSoTimeout(30_000);
        out = socket.getOutputStream();
        in = new BufferedInputStream(socket.getInputStream());
    }

    static byte[] encode(Object... args) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (Object a : args) {
            byte[] bytes = a instanceof byte[] raw ? raw : a.toString().getBytes(StandardCharsets.UTF_8);
            b.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            b.writeBytes(bytes);
            b.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        return b.toByteArray();
    }

    /** Sends one command and reads its reply. */
    Object call(Object... args) throws IOException {
        send(encode(args));
        return read();
    }

    void send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    void send(String text) throws IOException {
        send(text.getBytes(StandardCharsets.ISO_8859_1));
    }

    Object read() throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("connection closed");
        }
        String line = line();
        switch (type) {
            case '+':
                return line;
            case '-':
                return new Error(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                byte[] v = in.readNBytes(n);
                in.readNBytes(2);
                return v;
            }
            case '*': {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    items.add(read());
                }
                return items;
            }
            default:
                throw new IOException("unexpected reply type '" + (char) type + "'");
        }
    }

    /** Whether the server closed the connection (reads to end of stream, within the socket timeout). */
    /** Stops sending, as a client that has read its error does, then {@link #closedByServer}. */
    boolean closedByServerOnceDone() throws IOException {
        socket.shutdownOutput();
        return closedByServer();
    }

    boolean closedByServer() throws IOException {
        try {
            while (in.read() >= 0) {
                // skip whatever is still due
            }
            return true;
        } catch (java.net.SocketException e) {
            return true; // reset
        }
    }

    private String line() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != '\r') {
            if (c < 0) {
                throw new EOFException("connection closed mid-line");
            }
            b.write(c);
        }
        in.read(); // '\n'
        return b.toString(StandardCharsets.UTF_8);
    }

    static String text(Object bulk) {
        return bulk == null ? null : new String((byte[]) bulk, StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}

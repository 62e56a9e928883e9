// TcpRelay -- a loopback TCP relay in front of a server that a test can cut and restore: a network partition.
package io.elastikey.store.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Relays each connection made to {@link #port()} to {@code 127.0.0.1:targetPort}, byte for byte, on two threads per
 * connection. {@link #cut()} closes every relayed connection and, until {@link #restore()}, closes new ones as soon
 * as they are accepted: the client sees its server vanish and its reconnects fail, while other clients of the same
 * server go on.
 */
final class TcpRelay implements AutoCloseable {
    private final ServerSocket listener;
    private final int targetPort;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean cut;

    TcpRelay(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "tcp-relay-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return listener.getLocalPort();
    }

    void cut() {
        cut = true;
        open.forEach(TcpRelay::closeQuietly);
    }

    void restore() {
        cut = false;
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                if (cut) {
                    closeQuietly(client);
                    continue;
                }
                Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                open.add(client);
                open.add(server);
                pump(client, server);
                pump(server, client);
            } catch (IOException e) {
                // the listener closed, or the target refused this one connection
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16384];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    out.write(buffer, 0, n);
                }
            } catch (IOException e) {
                // either side closed
            } finally {
                open.remove(from);
                open.remove(to);
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "tcp-relay-pump");
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        cut();
    }
}

// ControlServer -- the running key server's control socket: keys commands run in the server, on its own open store.
package io.elastikey.keyserver.control;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channel;
import java.nio.channels.Channels;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.netty.util.concurrent.DefaultThreadFactory;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An ElasticStore has one owner, the running server, so {@code keys import}, {@code remove} and the rest cannot open
 * it beside the server. Instead they send their command line here ({@link ControlClient}), and the server runs the
 * command itself on the store and parsed-key cache it already has: an imported key is served at once, a removed
 * one is refused at once, and nothing restarts.
 *
 * <p>Who may: whoever can connect to the socket, a file in the server's data directory made owner-only (0600) as
 * soon as it is bound; until then the usual umask leaves it unwritable, and connecting needs write permission. That
 * is whoever can already read the KEK beside it, so the socket grants nothing new. The peer's user is logged with each
 * command, never its arguments (an import's password is one of them).
 *
 * <p>Bounds: the request must arrive within {@link #REQUEST_TIMEOUT_SECONDS} and fit {@link ControlWire}'s limits;
 * at most {@link #MAX_CONNECTIONS} connections are served at once, of which at most {@link #MAX_COMMANDS} run a
 * command (the next is told so, once its request is read, and refused). A connection still sending its request does
 * not hold a command's place, so a few idle connections cannot lock the operators out. Commands run concurrently
 * with each other and with requests, as {@code KeyRepository} allows. {@link #close} stops accepting and waits for
 * running commands, so a stop never closes the store under an import.
 */
public final class ControlServer implements AutoCloseable {
    /** Runs one {@code keys} command line for {@code operator} (the peer's user name); returns its exit status. */
    @FunctionalInterface
    public interface Commands {
        int run(String operator, List<String> arguments, PrintWriter out, PrintWriter err, RemoteProgress progress);
    }

    /** Whether the store a client meant is the store this server serves. */
    @FunctionalInterface
    public interface StoreCheck {
        /** {@code null} when it is; otherwise why the command is refused. */
        String refusal(String clientStore);
    }

    static final int MAX_COMMANDS = 4;
    static final int MAX_CONNECTIONS = 32;
    /** What the log calls a first argument that is not a subcommand's name, rather than repeat a client's bytes. */
    static final String NOT_A_COMMAND = "(not a keys command)";
    static final long REQUEST_TIMEOUT_SECONDS = 10;
    private static final long CLOSE_WAIT_SECONDS = 60;
    private static final int S_IFMT = 0170000;
    private static final int S_IFSOCK = 0140000;
    private static final Logger log = LoggerFactory.getLogger(ControlServer.class);

    private final Path path;
    private final ServerSocketChannel listener;
    private final Commands commands;
    private final StoreCheck storeCheck;
    private final ThreadPoolExecutor workers;
    private final Semaphore commandPlaces = new Semaphore(MAX_COMMANDS);
    private final ScheduledExecutorService deadlines;
    private final Thread acceptor;

    private ControlServer(Path path, ServerSocketChannel listener, Commands commands, StoreCheck storeCheck) {
        this.path = path;
        this.listener = listener;
        this.commands = commands;
        this.storeCheck = storeCheck;
        this.workers = new ThreadPoolExecutor(0, MAX_CONNECTIONS, 10, TimeUnit.SECONDS, new SynchronousQueue<>(),
                new DefaultThreadFactory("keys-control-command", true));
        this.deadlines = Executors.newSingleThreadScheduledExecutor(
                new DefaultThreadFactory("keys-control-deadline", true));
        this.acceptor = new DefaultThreadFactory("keys-control", true).newThread(this::acceptLoop);
    }

    /**
     * Binds {@code path} and starts accepting. A socket file left by a killed server is replaced; one a live process
     * still answers on is not.
     *
     * @throws IOException when the socket cannot be bound (the message names the path and why)
     */
    public static ControlServer start(Path path, Commands commands, StoreCheck storeCheck) throws IOException {
        if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            if (!isSocket(path)) {
                throw new IOException("control socket " + path + " exists and is not a socket; it is left alone");
            }
            if (answers(path)) {
                throw new IOException("control socket " + path + " is in use by another process (another key "
                        + "server with this control.socket?)");
            }
            Files.delete(path);
        }
        ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            listener.bind(UnixDomainSocketAddress.of(path));
        } catch (IOException | RuntimeException e) {
            listener.close(); // nothing was created: whatever is at the path now is not ours to remove
            throw new IOException("cannot bind control socket " + path + ": " + e.getMessage(), e);
        }
        try {
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-------"));
        } catch (IOException | RuntimeException e) {
            listener.close();
            Files.deleteIfExists(path);
            throw new IOException("cannot make control socket " + path + " owner-only: " + e.getMessage(), e);
        }
        ControlServer server = new ControlServer(path, listener, commands, storeCheck);
        server.acceptor.start();
        return server;
    }

    public Path path() {
        return path;
    }

    private void acceptLoop() {
        while (listener.isOpen()) {
            SocketChannel connection;
            try {
                connection = listener.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                log.warn("control socket {}: accept failed: {}", path, e.getMessage());
                continue;
            }
            try {
                workers.execute(() -> serve(connection));
            } catch (RejectedExecutionException e) {
                log.warn("control socket {}: refused a connection from user {}: {} connections are open already",
                        path, operator(connection), MAX_CONNECTIONS);
                refuse(connection, MAX_CONNECTIONS + " connections to this server's control socket are open "
                        + "already; try again later");
            }
        }
    }

    private void serve(SocketChannel connection) {
        String operator = operator(connection);
        String peer = "user " + operator;
        try (connection) {
            ScheduledFuture<?> deadline = deadlines.schedule(() -> closeQuietly(connection), REQUEST_TIMEOUT_SECONDS,
                    TimeUnit.SECONDS);
            ControlWire.Request request;
            try {
                request = ControlWire.readRequest(new DataInputStream(Channels.newInputStream(connection)));
            } catch (ControlProtocolException e) {
                deadline.cancel(false);
                refuse(connection, "refused: " + e.getMessage());
                log.warn("control socket {}: refused a request from {}: {}", path, peer, e.getMessage());
                return;
            } catch (IOException e) {
                if (deadline.cancel(false)) {
                    log.info("control socket {}: {} closed the connection before its request was whole", path,
                            peer);
                } else {
                    log.warn("control socket {}: no complete request from {} within {} s", path, peer,
                            REQUEST_TIMEOUT_SECONDS);
                }
                return;
            }
            if (!deadline.cancel(false)) {
                return; // closed by the deadline as the last byte arrived
            }
            if (!commandPlaces.tryAcquire()) {
                refuse(connection, MAX_COMMANDS + " keys commands are running on this server already; try again "
                        + "when one has finished");
                log.warn("control socket {}: refused keys {} from {}: {} commands are running", path,
                        commandName(request), peer, MAX_COMMANDS);
                return;
            }
            try {
                run(connection, operator, request);
            } finally {
                commandPlaces.release();
            }
        } catch (IOException e) {
            log.warn("control socket {}: {}", path, e.getMessage());
        }
    }

    private void run(SocketChannel connection, String operator, ControlWire.Request request) {
        String command = commandName(request);
        String refusal = storeCheck.refusal(request.store());
        if (refusal != null) {
            refuse(connection, refusal);
            return;
        }
        FrameSender frames = new FrameSender(Channels.newOutputStream(connection));
        PrintWriter out = frames.writer(ControlWire.OUT);
        PrintWriter err = frames.writer(ControlWire.ERR);
        long started = System.nanoTime();
        int status;
        try {
            status = commands.run(operator, request.arguments(), out, err, frames);
        } catch (RuntimeException e) {
            log.error("control socket {}: keys {} failed", path, command, e);
            err.println("elastikey keys " + command + ": failed in the key server: " + e);
            status = 1;
        }
        out.flush();
        err.flush();
        frames.exit(status);
        log.info("keys {} from user {} over the control socket: exit {} in {} ms{}", command, operator, status,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                frames.clientGone() ? " (the client left before the end)" : "");
    }

    /**
     * The subcommand's name for the log, when it looks like one: the rest of the request is the client's, and its
     * bytes (a line break, a forged log line) must not reach the log.
     */
    static String commandName(ControlWire.Request request) {
        String first = request.arguments().get(0);
        return first.matches("[a-z][a-z-]{0,31}") ? first : NOT_A_COMMAND;
    }

    /** Tells the client why, as its command's standard error and exit status 1, and closes. */
    private static void refuse(SocketChannel connection, String why) {
        try (connection) {
            FrameSender frames = new FrameSender(Channels.newOutputStream(connection));
            PrintWriter err = frames.writer(ControlWire.ERR);
            err.println("elastikey keys: " + why);
            err.flush();
            frames.exit(1);
        } catch (IOException e) {
            // the client has gone; nothing to tell
        }
    }

    /** The connecting process's user name, from the kernel ({@code SO_PEERCRED}), not from anything it sent. */
    private static String operator(SocketChannel connection) {
        try {
            UnixDomainPrincipal principal = connection.getOption(ExtendedSocketOptions.SO_PEERCRED);
            return principal.user().getName();
        } catch (IOException | UnsupportedOperationException e) {
            return "unknown";
        }
    }

    /** Whether {@code path} is a socket file (not a link, regular file, directory or device), from its mode bits. */
    static boolean isSocket(Path path) throws IOException {
        int mode = (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
        return (mode & S_IFMT) == S_IFSOCK;
    }

    /** Whether a process accepts connections on {@code path}. */
    static boolean answers(Path path) {
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            probe.connect(UnixDomainSocketAddress.of(path));
            return true;
        } catch (IOException e) {
            return false; // refused (a killed server's file), not a socket, or a path the kernel refuses
        }
    }

    @Override
    public void close() {
        closeQuietly(listener);
        try {
            acceptor.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        workers.shutdown();
        try {
            if (!workers.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
                log.warn("control socket {}: a keys command still runs after {} s; stopping anyway", path,
                        CLOSE_WAIT_SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        deadlines.shutdownNow();
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            log.warn("control socket {}: not removed: {}", path, e.getMessage());
        }
    }

    private static void closeQuietly(Channel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}

// SocketFile -- the agent's socket path: a stale file replaced only when nothing listens; mode 0660 after bind.
package io.elastikey.scaleup.agent.net;

import java.io.IOException;
import java.net.ConnectException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The rules for the file a Unix socket lives in. Before binding: a file already at the path is removed only if it
 * is a socket and connecting to it is refused (a crashed agent's leftover); a live agent or a file that is not a
 * socket stops the start with a message. After binding: the file gets mode {@code 0660} (owner and group may
 * connect). Between bind and chmod the file briefly has the mode the umask gives; put the socket in a directory
 * only the right users can enter if that matters. On close the file is removed if it is still the one bound.
 */
public final class SocketFile {
    private final Path path;
    private Object boundKey;

    public SocketFile(Path path) {
        this.path = path;
    }

    /** Clears the way for a bind, or throws {@link IllegalStateException} saying why not. */
    public void prepare() throws IOException {
        Files.createDirectories(path.toAbsolutePath().getParent());
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        BasicFileAttributes attrs = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!attrs.isOther()) {
            throw new IllegalStateException(path + " exists and is not a socket; not touching it");
        }
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            probe.connect(UnixDomainSocketAddress.of(path));
            throw new IllegalStateException("another agent is listening on " + path);
        } catch (ConnectException refused) {
            Files.deleteIfExists(path);
        }
    }

    /** After the bind: mode 0660, and remember the file so close removes only ours. */
    public void bound() throws IOException {
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-rw----"));
        boundKey = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
    }

    /** Removes the socket file if it is still the one this agent bound. */
    public void remove() {
        try {
            if (boundKey != null && boundKey.equals(Files.readAttributes(path, BasicFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS).fileKey())) {
                Files.deleteIfExists(path);
            }
        } catch (IOException ignored) {
            // gone already, or replaced: not ours to remove
        }
    }
}

// ControlClient -- a keys command's way into a running key server: its command line out, its output back.
package io.elastikey.keyserver.control;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;

/**
 * Hands one {@code keys} command to the key server that listens on a control socket ({@link ControlServer}) and
 * relays what it prints, its progress and its exit status, as if the command had run here. Without a server there
 * (no socket file, or a file a killed server left that nobody answers on) it returns empty, and the command opens
 * the store itself.
 */
public final class ControlClient {
    private ControlClient() {
    }

    /**
     * Runs {@code arguments} (a subcommand and its options, paths absolute) in the server on {@code socket}.
     *
     * @param store the store the caller means (its 'store' setting); the server refuses a command for another
     * @return the command's exit status, or empty when no server answers on {@code socket}
     * @throws IOException when the server answered and then broke off, or sent what is not a command's answer
     */
    public static OptionalInt forward(Path socket, String store, List<String> arguments, PrintWriter out,
                                      PrintWriter err, RemoteProgress progress) throws IOException {
        if (socket == null || !Files.exists(socket)) {
            return OptionalInt.empty();
        }
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        try (channel) {
            try {
                channel.connect(UnixDomainSocketAddress.of(socket));
            } catch (IOException e) {
                return OptionalInt.empty(); // refused: the file of a server that was killed
            }
            ControlWire.writeRequest(new DataOutputStream(Channels.newOutputStream(channel)),
                    new ControlWire.Request(store, arguments));
            return OptionalInt.of(relay(new DataInputStream(Channels.newInputStream(channel)), out, err, progress));
        }
    }

    static int relay(DataInputStream in, PrintWriter out, PrintWriter err, RemoteProgress progress)
            throws IOException {
        try {
            while (true) {
                byte type = in.readByte();
                byte[] payload = new byte[ControlWire.readFrameLength(in)];
                in.readFully(payload);
                DataInputStream fields = new DataInputStream(new ByteArrayInputStream(payload));
                switch (type) {
                    case ControlWire.OUT -> {
                        out.print(new String(payload, StandardCharsets.UTF_8));
                        out.flush();
                    }
                    case ControlWire.ERR -> {
                        err.print(new String(payload, StandardCharsets.UTF_8));
                        err.flush();
                    }
                    case ControlWire.PROGRESS_START -> {
                        String label = fields.readUTF();
                        String unit = fields.readUTF();
                        progress.start(label, fields.readLong(), unit);
                    }
                    case ControlWire.PROGRESS_UPDATE -> progress.update(fields.readLong());
                    case ControlWire.PROGRESS_FINISH -> progress.finish(fields.readLong());
                    case ControlWire.EXIT -> {
                        return fields.readInt();
                    }
                    default -> throw new ControlProtocolException("a frame of unknown type " + (type & 0xff));
                }
            }
        } catch (EOFException e) {
            throw new IOException("the key server closed the control connection before the command ended (did it "
                    + "stop?); what the command did is in its log and in `keys list`", e);
        }
    }
}

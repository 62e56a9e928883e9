// ControlWire -- the bytes of the key server's control socket: one keys command in, its output as frames out.
package io.elastikey.keyserver.control;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The control socket carries one {@code keys} command per connection. The client sends a request:
 * <pre>
 *   "EKCTL1"                      magic and version, 6 bytes
 *   u32 length, UTF-8             the store the client meant (its 'store' setting), checked against the server's
 *   u32 count                     then count arguments, each u32 length + UTF-8: the subcommand and its options
 * </pre>
 * and the server answers with frames, each a type byte, a u32 payload length and the payload, until an
 * {@link #EXIT} frame: {@link #OUT} and {@link #ERR} carry the command's standard output and error as UTF-8,
 * {@link #PROGRESS_START} ({@code writeUTF} label, {@code writeUTF} unit, i64 total), {@link #PROGRESS_UPDATE} and
 * {@link #PROGRESS_FINISH} (i64 done) drive the client's progress bar, {@link #EXIT} (i32) ends the command.
 *
 * <p>Every length is bounded before anything is allocated, so a client that sends garbage gets a
 * {@link ControlProtocolException} and costs the server at most {@link #MAX_REQUEST_BYTES}.
 */
final class ControlWire {
    static final byte[] MAGIC = {'E', 'K', 'C', 'T', 'L', '1'};
    static final int MAX_ARGUMENTS = 4096;
    static final int MAX_STRING_BYTES = 64 << 10;
    static final int MAX_REQUEST_BYTES = 1 << 20;
    static final int MAX_FRAME_BYTES = 1 << 20;

    static final byte OUT = 'O';
    static final byte ERR = 'E';
    static final byte PROGRESS_START = 'S';
    static final byte PROGRESS_UPDATE = 'U';
    static final byte PROGRESS_FINISH = 'F';
    static final byte EXIT = 'X';

    /** What a client asks: the store it meant and the command line of one {@code keys} subcommand. */
    record Request(String store, List<String> arguments) {
        Request {
            arguments = List.copyOf(arguments);
        }
    }

    private ControlWire() {
    }

    static void writeRequest(DataOutputStream out, Request request) throws IOException {
        out.write(MAGIC);
        writeString(out, request.store());
        out.writeInt(request.arguments().size());
        for (String argument : request.arguments()) {
            writeString(out, argument);
        }
        out.flush();
    }

    static Request readRequest(DataInputStream in) throws IOException {
        byte[] magic = new byte[MAGIC.length];
        in.readFully(magic);
        if (!Arrays.equals(magic, MAGIC)) {
            throw new ControlProtocolException("not a keys command (bad magic); is this an Elastikey client of the "
                    + "same version?");
        }
        int[] budget = {MAX_REQUEST_BYTES};
        String store = readString(in, budget);
        int count = in.readInt();
        if (count < 1 || count > MAX_ARGUMENTS) {
            throw new ControlProtocolException("a command of " + Integer.toUnsignedString(count)
                    + " arguments; 1 to " + MAX_ARGUMENTS + " are accepted");
        }
        List<String> arguments = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            arguments.add(readString(in, budget));
        }
        return new Request(store, arguments);
    }

    static void writeFrame(DataOutputStream out, byte type, byte[] payload, int offset, int length)
            throws IOException {
        out.writeByte(type);
        out.writeInt(length);
        out.write(payload, offset, length);
    }

    /** Reads a frame's payload length, refusing one larger than a server sends. */
    static int readFrameLength(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > MAX_FRAME_BYTES) {
            throw new ControlProtocolException("a frame of " + Integer.toUnsignedString(length) + " bytes");
        }
        return length;
    }

    private static void writeString(DataOutputStream out, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_STRING_BYTES) {
            throw new ControlProtocolException("an argument of " + bytes.length + " bytes; at most "
                    + MAX_STRING_BYTES + " are accepted");
        }
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    private static String readString(DataInputStream in, int[] budget) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > MAX_STRING_BYTES || length > budget[0]) {
            throw new ControlProtocolException("an argument of " + Integer.toUnsignedString(length)
                    + " bytes; at most " + MAX_STRING_BYTES + " each and " + MAX_REQUEST_BYTES + " in all");
        }
        budget[0] -= length;
        byte[] bytes = new byte[length];
        in.readFully(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}

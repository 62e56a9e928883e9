// RespClientWire -- the client's side of RESP for the server's own tools (store load --to, the start-up warm-up).
package io.elastikey.resp;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Writes commands as arrays of bulk strings and reads replies only as far as telling them apart: the tools that use
 * it check {@code +OK} or skip a value, and need nothing a client library would bring.
 */
public final class RespClientWire {
    private RespClientWire() {
    }

    /** Writes {@code args} (the command's name first) as one RESP array of bulk strings. */
    public static void command(OutputStream out, byte[]... args) throws IOException {
        header(out, '*', args.length);
        for (byte[] arg : args) {
            header(out, '$', arg.length);
            out.write(arg);
            out.write('\r');
            out.write('\n');
        }
    }

    /**
     * Reads one reply and returns its first line without the CRLF ({@code +OK}, {@code -ERR ...}, {@code :1},
     * {@code $4096}), having skipped a bulk string's value. Arrays are not read: these tools send no command that
     * answers one.
     */
    public static String reply(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) != '\n') {
            if (c < 0) {
                throw new EOFException("the server closed the connection");
            }
            if (c != '\r') {
                line.append((char) c);
            }
        }
        if (line.length() > 1 && line.charAt(0) == '$') {
            long length = Long.parseLong(line, 1, line.length(), 10);
            if (length >= 0) {
                in.skipNBytes(length + 2);
            }
        }
        return line.toString();
    }

    private static void header(OutputStream out, char type, int n) throws IOException {
        out.write(type);
        out.write(Integer.toString(n).getBytes(StandardCharsets.US_ASCII));
        out.write('\r');
        out.write('\n');
    }
}

// RawHttp -- HTTP/1.1 by hand over a raw TLS socket, for what no well-behaved client would send.
package io.elastikey.keyserver;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;

/**
 * Writes request bytes exactly as given and reads answers byte by byte, so tests can send what the JDK's client
 * refuses to (oversized or unparsable heads) and can tell whether the server closed the connection afterwards.
 */
final class RawHttp {
    private static final Pattern CONTENT_LENGTH = Pattern.compile("(?im)^content-length:\\s*(\\d+)\\s*$");

    private RawHttp() {
    }

    /** One answer: its status line, its head (status line and headers) and its body. */
    record Answer(String statusLine, String head, String body) {
        int status() {
            return Integer.parseInt(statusLine.split(" ")[1]);
        }

        String header(String name) {
            Matcher m = Pattern.compile("(?im)^" + Pattern.quote(name) + ":\\s*(.*?)\\s*$").matcher(head);
            return m.find() ? m.group(1) : null;
        }
    }

    /** {@code POST /} with a JSON body, keep-alive. */
    static String post(String json) {
        return "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: "
                + json.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + json;
    }

    static void write(SSLSocket socket, String request) throws IOException {
        socket.getOutputStream().write(request.getBytes(StandardCharsets.UTF_8));
        socket.getOutputStream().flush();
    }

    /** Reads one answer whose body has a Content-Length, leaving the connection usable. */
    static Answer readAnswer(SSLSocket socket) throws IOException {
        InputStream in = socket.getInputStream();
        String head = readHead(in);
        Matcher length = CONTENT_LENGTH.matcher(head);
        if (!length.find()) {
            throw new IOException("no Content-Length in " + head);
        }
        byte[] body = in.readNBytes(Integer.parseInt(length.group(1)));
        return answer(head, new String(body, StandardCharsets.UTF_8));
    }

    /** Reads one head without a body, such as an interim {@code 100 Continue}. */
    static Answer readHead(SSLSocket socket) throws IOException {
        return answer(readHead(socket.getInputStream()), "");
    }

    /**
     * Reads everything until the server closes the connection and returns the one answer in it. A server that does
     * not close makes the read time out (the socket's timeout), which fails the caller.
     */
    static Answer readUntilClosed(SSLSocket socket) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[4096];
        InputStream in = socket.getInputStream();
        try {
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                out.write(buffer, 0, n);
            }
        } catch (SSLException e) {
            // A close without close_notify after the answer: the answer is what counts.
            if (out.size() == 0) {
                throw e;
            }
        }
        String text = out.toString(StandardCharsets.UTF_8);
        int end = text.indexOf("\r\n\r\n");
        if (end < 0) {
            throw new EOFException("closed before a complete answer: " + text);
        }
        return answer(text.substring(0, end + 4), text.substring(end + 4));
    }

    private static Answer answer(String head, String body) {
        String trimmed = head.strip();
        return new Answer(trimmed.lines().findFirst().orElse(""), trimmed, body);
    }

    private static String readHead(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (head.length() < 4 || !head.substring(head.length() - 4).equals("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) {
                throw new EOFException("closed after " + (head.length() == 0 ? "nothing" : head.toString()));
            }
            head.append((char) c);
        }
        return head.toString();
    }
}

// AuditJson -- formats an AuditEvent as one JSON object on one line.
package io.elastikey.keyserver.audit;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;


/**
 * The audit line format: one JSON object per line, always these fields in this order, absent values as
 * {@code null}:
 * <pre>
 * {"time":"2026-11-21T15:49:27.123456Z","client":"edge-eu-1/3a7b9c1d4e5f6a7b","remote":"192.0.2.7:50412",
 *  "protocol":"ski","key":"9f86d0...","method":"ECDHE","result":"ok","micros":412}
 * </pre>
 * (shown on two lines here; written on one). {@code time} is UTC with microseconds; {@code client} the short
 * identity; {@code remote} the peer's IP address and port, never a resolved host name; {@code protocol}
 * {@code ski} or {@code keyless}; {@code method} the SKI wire name of the operation (a Keyless opcode is logged as
 * the SKI method that does the same, e.g. {@code ECDSA-DIGEST}); {@code result} {@code ok} or the error text the
 * client got; {@code micros} the request's duration.
 * Escaping ({@link #appendString}) keeps a common name with quotes or control characters from breaking a line.
 * Thread-safe.
 */
final class AuditJson {
    /** The fields of every line, in order: the contract with whoever parses the audit log. */
    static final List<String> FIELDS = List.of("time", "client", "remote", "protocol", "key", "method", "result",
            "micros");

    private static final DateTimeFormatter SECOND = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.");
    private static final int MAX_REMOTE_CHARS = 128;
    private static final char[] HEX = "0123456789abcdef".toCharArray();
    /** The {@code micros} of an event that has no duration (a key change), written as {@code null}. */
    private static final long NO_DURATION = -1;

    /**
     * The text of the last second formatted, reused for every line of that second: the formatter was the largest
     * part of a line's cost (a line is written per request, tens of thousands a second). Replaced whole, so any
     * thread may format.
     */
    private static volatile FormattedSecond lastSecond = new FormattedSecond(Long.MIN_VALUE, "");

    private AuditJson() {
    }

    /**
     * One line. Written by hand rather than through a JSON generator (a generator and a writer per line were the
     * rest of that cost); every string value goes through {@link #appendString}, which escapes as JSON requires, so a
     * client's certificate names cannot break a line.
     */
    static String format(AuditEvent event) {
        return line(event.time(), event.client() == null ? null : event.client().shortName(), remote(event.remote()),
                event.protocol().label(), event.keyId(), event.method() == null ? null : event.method().wireName(),
                event.result(), event.micros());
    }

    /**
     * A key change's line: the same fields, so one parser reads both. {@code client} is {@code user <name>},
     * {@code remote} the control socket's path, {@code protocol} {@code keys}, {@code method} the change
     * ({@code ADD-KEY}, {@code UPDATE-KEY}, {@code REMOVE-KEY}), {@code result} {@code ok} (a change that failed
     * did not happen), {@code micros} {@code null}.
     */
    static String format(KeyChangeEvent event) {
        return line(event.time(), "user " + event.operator(), event.socket() == null ? null : event.socket().toString(),
                KeyChangeEvent.PROTOCOL, event.keyId(), event.change().label(), "ok", NO_DURATION);
    }

    /** Every line, in {@link #FIELDS}' order. */
    private static String line(Instant time, String client, String remote, String protocol, String key,
                               String method, String result, long micros) {
        StringBuilder line = new StringBuilder(320); // a line with a 64-character key ID is some 250
        line.append("{\"time\":\"");
        appendTime(line, time);
        line.append("\",\"client\":");
        appendString(line, client);
        line.append(",\"remote\":");
        appendString(line, remote);
        line.append(",\"protocol\":");
        appendString(line, protocol);
        line.append(",\"key\":");
        appendString(line, key);
        line.append(",\"method\":");
        appendString(line, method);
        line.append(",\"result\":");
        appendString(line, result);
        line.append(",\"micros\":");
        if (micros == NO_DURATION) {
            line.append("null");
        } else {
            line.append(micros);
        }
        return line.append('}').toString();
    }

    /** {@code 2026-11-21T15:49:27.123456Z}: UTC, microseconds. */
    private static void appendTime(StringBuilder line, Instant time) {
        long second = time.getEpochSecond();
        FormattedSecond formatted = lastSecond;
        if (formatted.epochSecond != second) {
            formatted = new FormattedSecond(second, SECOND.format(LocalDateTime.ofEpochSecond(second, 0,
                    ZoneOffset.UTC)));
            lastSecond = formatted;
        }
        line.append(formatted.text);
        int micros = time.getNano() / 1000;
        for (int divisor = 100_000; divisor > 0; divisor /= 10) {
            line.append((char) ('0' + micros / divisor % 10));
        }
        line.append('Z');
    }

    /** A JSON string (or {@code null}): quotes, backslashes and control characters escaped, the rest as it is. */
    static void appendString(StringBuilder line, String value) {
        if (value == null) {
            line.append("null");
            return;
        }
        line.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> line.append("\\\"");
                case '\\' -> line.append("\\\\");
                case '\n' -> line.append("\\n");
                case '\r' -> line.append("\\r");
                case '\t' -> line.append("\\t");
                default -> {
                    if (c < 0x20) {
                        line.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
                    } else {
                        line.append(c);
                    }
                }
            }
        }
        line.append('"');
    }

    private record FormattedSecond(long epochSecond, String text) {
    }

    /** {@code ip:port} ({@code [ip]:port} for IPv6) without a DNS lookup; other addresses as they print. */
    private static String remote(SocketAddress remote) {
        if (remote == null) {
            return null;
        }
        if (remote instanceof InetSocketAddress inet) {
            String host = inet.getAddress() == null ? inet.getHostString() : inet.getAddress().getHostAddress();
            return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + inet.getPort();
        }
        String text = remote.toString();
        return text.length() > MAX_REMOTE_CHARS ? text.substring(0, MAX_REMOTE_CHARS) : text;
    }
}

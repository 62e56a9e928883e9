// AuditJson -- formats an AuditEvent as one JSON object on one line.
package io.elastikey.keyserver.audit;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

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
 * the SKI method that does the same, e.g. {@code ECDSA-DIGEST}); {@code result} {@code ok} or the error text the client got; {@code micros} the request's duration. Jackson
 * does the escaping, so a common name with quotes or control characters cannot break a line. Thread-safe.
 */
final class AuditJson {
    /** The fields of every line, in order: the contract with whoever parses the audit log. */
    static final List<String> FIELDS = List.of("time", "client", "remote", "protocol", "key", "method", "result",
            "micros");

    /**
     * Formats a UTC {@link LocalDateTime}, not an {@link Instant} through a zoned formatter: on Java 17 the zoned
     * path builds a new {@code ZoneRules} (with a hash map inside) for every line, which was a fifth of the key
     * server's allocation under load.
     */
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'");
    private static final int MAX_REMOTE_CHARS = 128;
    private static final JsonFactory JSON = new JsonFactory();

    private AuditJson() {
    }

    static String format(AuditEvent event) {
        StringWriter line = new StringWriter(200);
        try (JsonGenerator json = JSON.createGenerator(line)) {
            json.writeStartObject();
            Instant time = event.time();
            json.writeStringField("time", TIME.format(LocalDateTime.ofEpochSecond(time.getEpochSecond(),
                    time.getNano(), ZoneOffset.UTC)));
            json.writeStringField("client", event.client() == null ? null : event.client().shortName());
            json.writeStringField("remote", remote(event.remote()));
            json.writeStringField("protocol", event.protocol().label());
            json.writeStringField("key", event.keyId());
            json.writeStringField("method", event.method() == null ? null : event.method().wireName());
            json.writeStringField("result", event.result());
            json.writeNumberField("micros", event.micros());
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("a StringWriter does not fail", e);
        }
        return line.toString();
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

// ScaleUpJson -- the JSON lines of the rescale protocol, both directions, for the Java client and scaleupd.
package io.elastikey.scaleup.protocol;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import io.elastikey.scaleup.GiveBackRequest;
import io.elastikey.scaleup.ScaleUpResponse;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Encodes and decodes the lines of PROTOCOLS.md section 3 (requests, answers, and the agent's give-back requests
 * on a watch connection), strictly: the root must be one JSON object and nothing
 * after it, a field may appear once, required fields must be there with their JSON type, integers must fit their
 * range; unknown fields are skipped. Decoding works on the line without its {@code '\n'}; encoding returns the line
 * with it. Streaming jackson-core, so a hostile line costs at most its 4096 bytes.
 *
 * <p>Thread-safe: the shared {@link JsonFactory} is, and each call makes its own parser or generator.
 */
public final class ScaleUpJson {
    private static final JsonFactory JSON = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();
    private static final int MAX_MESSAGE_CHARS = 1024;

    private ScaleUpJson() {
    }

    /** The request as one line, {@code '\n'} included. */
    public static byte[] encodeRequest(ScaleUpRequest request) {
        ByteArrayBuilder out = new ByteArrayBuilder(128);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("op", request.op().wireName());
            g.writeStringField("client", request.client());
            if (request.op().carriesMemory()) {
                g.writeNumberField("memory_mb", request.memoryMb());
            }
            if (request.op() == ScaleUpRequest.Op.RESCALE) {
                g.writeStringField("reason", request.reason());
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.append('\n');
        return out.toByteArray();
    }

    /**
     * The answer as one line, {@code '\n'} included, never longer than {@link ProtocolLimits#MAX_LINE_BYTES} before
     * the {@code '\n'}: a long message is cut to fit.
     */
    public static byte[] encodeAnswer(ScaleUpResponse answer) {
        String message = cut(answer.message(), MAX_MESSAGE_CHARS);
        while (true) {
            byte[] line = encodeAnswer(answer, message);
            if (line.length - 1 <= ProtocolLimits.MAX_LINE_BYTES) {
                return line;
            }
            message = cut(message, message.length() / 2);
        }
    }

    /** The first {@code chars} of {@code s}, one less if that would split a surrogate pair. */
    private static String cut(String s, int chars) {
        if (s.length() <= chars) {
            return s;
        }
        int end = chars > 0 && Character.isHighSurrogate(s.charAt(chars - 1)) ? chars - 1 : chars;
        return s.substring(0, end);
    }

    private static byte[] encodeAnswer(ScaleUpResponse a, String message) {
        ByteArrayBuilder out = new ByteArrayBuilder(192);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("status", a.status().wireName());
            g.writeStringField("client", a.client());
            g.writeNumberField("granted_mb", a.grantedMb());
            g.writeNumberField("pool_free_mb", a.poolFreeMb());
            g.writeNumberField("elapsed_us", a.elapsedUs());
            g.writeStringField("message", message);
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.append('\n');
        return out.toByteArray();
    }

    /** The request in {@code line[off, off+len)}, without its {@code '\n'}. */
    public static ScaleUpRequest decodeRequest(byte[] line, int off, int len) throws MalformedMessageException {
        String op = null;
        String client = null;
        Long memoryMb = null;
        String reason = null;
        try (JsonParser p = open(line, off, len)) {
            for (String field = p.nextFieldName(); field != null; field = p.nextFieldName()) {
                p.nextToken();
                switch (field) {
                    case "op" -> op = text(p, field);
                    case "client" -> client = text(p, field);
                    case "memory_mb" -> memoryMb = integer(p, field);
                    case "reason" -> reason = text(p, field);
                    default -> p.skipChildren();
                }
            }
            end(p);
        } catch (IOException e) {
            throw notJson(e);
        }
        ScaleUpRequest.Op kind = ScaleUpRequest.Op.fromWire(require(op, "op"));
        if (kind == null) {
            throw new MalformedMessageException("unknown op (rescale, status, release, watch or pool)");
        }
        String problem = ProtocolLimits.clientNameProblem(require(client, "client"));
        if (problem != null) {
            throw new MalformedMessageException(problem);
        }
        if (!kind.carriesMemory()) {
            return new ScaleUpRequest(kind, client, 0, "");
        }
        long mb = require(memoryMb, "memory_mb");
        problem = ProtocolLimits.memoryProblem(mb);
        if (problem == null && reason != null) {
            problem = ProtocolLimits.reasonProblem(reason);
        }
        if (problem != null) {
            throw new MalformedMessageException(problem);
        }
        return kind == ScaleUpRequest.Op.POOL ? ScaleUpRequest.pool(client, mb) : ScaleUpRequest.rescale(client, mb, reason);
    }

    /**
     * A give-back request as the agent writes it on a watch connection, {@code '\n'} included:
     * {@code {"op":"give_back","client":..,"memory_mb":..,"granted_mb":..,"deadline_ms":..,"reason":..}}. A long
     * reason is cut to the protocol's 256 bytes.
     */
    public static byte[] encodeGiveBack(GiveBackRequest r) {
        ByteArrayBuilder out = new ByteArrayBuilder(192);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("op", GiveBackRequest.OP);
            g.writeStringField("client", r.client());
            g.writeNumberField("memory_mb", r.memoryMb());
            g.writeNumberField("granted_mb", r.grantedMb());
            g.writeNumberField("deadline_ms", r.deadlineMs());
            g.writeStringField("reason", r.reason());
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.append('\n');
        return out.toByteArray();
    }

    /** The give-back request in {@code line[off, off+len)}, without its {@code '\n'}; every field is required. */
    public static GiveBackRequest decodeGiveBack(byte[] line, int off, int len) throws MalformedMessageException {
        String op = null;
        String client = null;
        Long memory = null;
        Long granted = null;
        Long deadline = null;
        String reason = null;
        try (JsonParser p = open(line, off, len)) {
            for (String field = p.nextFieldName(); field != null; field = p.nextFieldName()) {
                p.nextToken();
                switch (field) {
                    case "op" -> op = text(p, field);
                    case "client" -> client = text(p, field);
                    case "memory_mb" -> memory = integer(p, field);
                    case "granted_mb" -> granted = integer(p, field);
                    case "deadline_ms" -> deadline = integer(p, field);
                    case "reason" -> reason = text(p, field);
                    default -> p.skipChildren();
                }
            }
            end(p);
        } catch (IOException e) {
            throw notJson(e);
        }
        if (!GiveBackRequest.OP.equals(require(op, "op"))) {
            throw new MalformedMessageException("not a give_back request");
        }
        String problem = ProtocolLimits.clientNameProblem(require(client, "client"));
        long mb = nonNegative(require(memory, "memory_mb"), "memory_mb");
        long held = nonNegative(require(granted, "granted_mb"), "granted_mb");
        long ms = nonNegative(require(deadline, "deadline_ms"), "deadline_ms");
        if (problem == null) {
            problem = ProtocolLimits.memoryProblem(mb);
        }
        if (problem == null) {
            problem = ProtocolLimits.memoryProblem(held);
        }
        if (problem == null) {
            problem = ProtocolLimits.reasonProblem(require(reason, "reason"));
        }
        if (problem != null) {
            throw new MalformedMessageException(problem);
        }
        return new GiveBackRequest(client, mb, held, ms, reason);
    }

    /** The answer in {@code line[off, off+len)}, without its {@code '\n'}; all six fields are required. */
    public static ScaleUpResponse decodeAnswer(byte[] line, int off, int len) throws MalformedMessageException {
        String status = null;
        String client = null;
        Long granted = null;
        Long free = null;
        Long elapsed = null;
        String message = null;
        try (JsonParser p = open(line, off, len)) {
            for (String field = p.nextFieldName(); field != null; field = p.nextFieldName()) {
                p.nextToken();
                switch (field) {
                    case "status" -> status = text(p, field);
                    case "client" -> client = text(p, field);
                    case "granted_mb" -> granted = integer(p, field);
                    case "pool_free_mb" -> free = integer(p, field);
                    case "elapsed_us" -> elapsed = integer(p, field);
                    case "message" -> message = text(p, field);
                    default -> p.skipChildren();
                }
            }
            end(p);
        } catch (IOException e) {
            throw notJson(e);
        }
        ScaleUpResponse.Status s = ScaleUpResponse.Status.fromWire(require(status, "status"));
        if (s == null) {
            throw new MalformedMessageException("unknown status (granted, partial, denied or error)");
        }
        require(client, "client");
        return new ScaleUpResponse(s, client, nonNegative(require(granted, "granted_mb"), "granted_mb"),
                nonNegative(require(free, "pool_free_mb"), "pool_free_mb"),
                nonNegative(require(elapsed, "elapsed_us"), "elapsed_us"), require(message, "message"));
    }

    private static JsonParser open(byte[] line, int off, int len) throws IOException, MalformedMessageException {
        JsonParser p = JSON.createParser(line, off, len);
        if (p.nextToken() != JsonToken.START_OBJECT) {
            p.close();
            throw new MalformedMessageException("not a JSON object");
        }
        return p;
    }

    private static void end(JsonParser p) throws IOException, MalformedMessageException {
        if (p.currentToken() != JsonToken.END_OBJECT) {
            throw new MalformedMessageException("not a JSON object");
        }
        if (p.nextToken() != null) {
            throw new MalformedMessageException("content after the JSON object");
        }
    }

    private static String text(JsonParser p, String field) throws IOException, MalformedMessageException {
        if (p.currentToken() != JsonToken.VALUE_STRING) {
            throw new MalformedMessageException(field + " must be a string");
        }
        return p.getText();
    }

    private static long integer(JsonParser p, String field) throws IOException, MalformedMessageException {
        if (p.currentToken() != JsonToken.VALUE_NUMBER_INT) {
            throw new MalformedMessageException(field + " must be an integer");
        }
        if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
            throw new MalformedMessageException(field + " is out of range");
        }
        return p.getLongValue();
    }

    private static <T> T require(T value, String field) throws MalformedMessageException {
        if (value == null) {
            throw new MalformedMessageException("missing field " + field);
        }
        return value;
    }

    private static long nonNegative(long value, String field) throws MalformedMessageException {
        if (value < 0) {
            throw new MalformedMessageException(field + " is negative");
        }
        return value;
    }

    private static MalformedMessageException notJson(IOException e) {
        // Jackson's message quotes input and locations; say only what kind of problem it was.
        String what = e instanceof com.fasterxml.jackson.core.exc.StreamConstraintsException
                ? "a value exceeds the parser's limits" : "invalid JSON";
        if (e.getMessage() != null && e.getMessage().startsWith("Duplicate field")) {
            what = "a field appears twice";
        }
        return new MalformedMessageException(what);
    }
}

// SkiJson -- the SKI JSON bodies: requests and answers, read and written with Jackson's streaming API.
package io.elastikey.protocol.ski;

import java.io.ByteArrayOutputStream;
import java.io.CharConversionException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

import com.fasterxml.jackson.core.Base64Variants;
import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.core.io.SerializedString;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.Unpooled;

/**
 * Reads and writes the bodies of PROTOCOLS.md section 1: the request object, {@code {"output":"<base64>"}} and
 * {@code {"error":"<text>"}}. This is the key server's hot path, so it uses Jackson's streaming parser and generator
 * over one shared {@link JsonFactory} rather than data binding: no reflection, no intermediate tree, a heap
 * {@link ByteBuf} parsed in place, base64 decoded from the parser's buffer and encoded straight into the output.
 *
 * <p>Every method is stateless and thread-safe. The {@link ByteBuf} methods never change the buffer's reader index
 * and never release it; writers append at the writer index.
 *
 * <p>A request that breaks any rule is a {@link SkiException} of {@link SkiError#MALFORMED_REQUEST} whose message is a
 * reason for the server's log: it names the field and the rule or the byte offset of a JSON error, never the bytes of
 * the request, because they may be secrets. Jackson's own messages quote input, so they are never passed on, not even
 * as a cause. The rules beyond JSON syntax are in {@link SkiRequestReader}; at the document level a request must be
 * exactly one object, nested at most {@value #MAX_NESTING_DEPTH} levels deep (unknown fields may hold objects).
 */
public final class SkiJson {
    /** The values the {@code protocol} field may take, exactly as written here. */
    public static final List<String> PROTOCOLS =
            List.of("TLS 1.0", "TLS 1.1", "TLS 1.2", "TLS 1.3", "DTLS 1.0", "DTLS 1.2");
    /** The deepest nesting a request may have, counting its own object as 1. */
    public static final int MAX_NESTING_DEPTH = 16;

    static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_NESTING_DEPTH).build())
            .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
            .disable(StreamWriteFeature.AUTO_CLOSE_TARGET)
            .build();

    private static final SerializableString PROTOCOL = new SerializedString("protocol");
    private static final SerializableString METHOD = new SerializedString("method");
    private static final SerializableString HASH = new SerializedString("hash");
    private static final SerializableString SCHEME = new SerializedString("scheme");
    private static final SerializableString SPKI = new SerializedString("spki");
    private static final SerializableString INPUT = new SerializedString("input");
    private static final byte[] OUTPUT_OPEN = "{\"output\":\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] OUTPUT_CLOSE = "\"}".getBytes(StandardCharsets.US_ASCII);
    private static final SerializableString ERROR = new SerializedString("error");

    private SkiJson() {
    }

    /** The request in {@code body}; see the class comment for what is refused. */
    public static SkiRequest decodeRequest(byte[] body) {
        return decodeRequest(body, 0, body.length);
    }

    public static SkiRequest decodeRequest(byte[] body, int offset, int length) {
        try (JsonParser parser = FACTORY.createParser(body, offset, length)) {
            return readRequest(parser);
        } catch (CharConversionException e) {
            throw unreadableEncoding();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // only close() could get here, and closing a byte array cannot fail
        }
    }

    /** The request in {@code body}'s readable bytes; a heap buffer is parsed in place, a direct one streamed. */
    public static SkiRequest decodeRequest(ByteBuf body) {
        try (JsonParser parser = parserOver(body)) {
            return readRequest(parser);
        } catch (CharConversionException e) {
            throw unreadableEncoding();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Jackson guesses the encoding from the first four bytes when it creates the parser, before {@link #readRequest}
     * can map its errors: four bytes shaped like a UCS-4 byte order it does not support (2143 or 3412) fail right
     * there. That is a malformed body like any other, found by fuzzing (docs/security.md, "Fuzzing").
     */
    private static SkiException unreadableEncoding() {
        return SkiRequestReader.malformed("the body's first bytes name a character encoding JSON does not use");
    }

    /** A parser over the readable bytes: the backing array itself when there is one, else a stream. */
    static JsonParser parserOver(ByteBuf body) throws IOException {
        if (body.hasArray()) {
            return FACTORY.createParser(body.array(), body.arrayOffset() + body.readerIndex(), body.readableBytes());
        }
        return FACTORY.createParser((InputStream) new ByteBufInputStream(body.duplicate()));
    }

    private static SkiRequest readRequest(JsonParser parser) {
        try {
            return SkiRequestReader.read(parser);
        } catch (StreamConstraintsException e) {
            throw SkiRequestReader.malformed("the body exceeds the parser's limits (nesting depth "
                    + MAX_NESTING_DEPTH + ", or a string, number or name too long)");
        } catch (JsonEOFException e) {
            throw SkiRequestReader.malformed("the body ends inside the JSON document");
        } catch (IOException e) {
            throw SkiRequestReader.malformed("invalid JSON at byte " + parser.currentLocation().getByteOffset());
        }
    }

    /** The request as JSON, fields in the order existing clients send them; a null protocol is left out. */
    public static byte[] encodeRequest(SkiRequest request) {
        return write(out -> writeRequest(request, out));
    }

    public static void encodeRequest(SkiRequest request, ByteBuf out) {
        write(request, out);
    }

    /** The success body {@code {"output":"<base64>"}}. */
    public static byte[] encodeOutput(byte[] output) {
        byte[] body = new byte[OUTPUT_OPEN.length + (output.length + 2) / 3 * 4 + OUTPUT_CLOSE.length];
        encodeOutput(output, Unpooled.wrappedBuffer(body).clear());
        return body;
    }

    /**
     * {@link #encodeOutput(byte[])} into {@code out}, written directly rather than through a generator: base64
     * needs no JSON escaping, and a generator per answer (its context, stream and writer objects) was some 5% of what
     * the key server allocated per request (docs/benchmarks.md, "Packed keys off the heap").
     */
    public static void encodeOutput(byte[] output, ByteBuf out) {
        out.writeBytes(OUTPUT_OPEN).writeBytes(Base64.getEncoder().encode(output)).writeBytes(OUTPUT_CLOSE);
    }

    /** The error body {@code {"error":"<text>"}}; its status is {@link SkiError#status()}. */
    public static byte[] encodeError(SkiError error) {
        return ErrorBodies.of(error);
    }

    public static void encodeError(SkiError error, ByteBuf out) {
        out.writeBytes(ErrorBodies.BODIES[error.ordinal()]);
    }

    /**
     * What an answer says: the output of a success, or else the error it names.
     *
     * @param status the HTTP status the answer came with
     * @throws SkiException the error the body's text names, or, when the body names none, the error of
     *                      {@code status}
     * @throws SkiTransportException of kind {@link SkiTransportException.Kind#BAD_ANSWER} when the answer is neither
     */
    public static byte[] decodeAnswer(int status, ByteBuf body) throws SkiTransportException {
        return SkiAnswerReader.read(status, body);
    }

    public static byte[] decodeAnswer(int status, byte[] body) throws SkiTransportException {
        return SkiAnswerReader.read(status, Unpooled.wrappedBuffer(body));
    }

    /** The canonical {@link #PROTOCOLS} entry equal to {@code text}, or {@code null}. */
    static String protocolOf(String text) {
        for (String protocol : PROTOCOLS) {
            if (protocol.equals(text)) {
                return protocol;
            }
        }
        return null;
    }

    private static void writeRequest(SkiRequest request, JsonGenerator json) throws IOException {
        json.writeStartObject();
        if (request.protocol() != null) {
            json.writeFieldName(PROTOCOL);
            json.writeString(request.protocol());
        }
        json.writeFieldName(METHOD);
        json.writeString(request.method().wireName());
        if (request.hash() != null) {
            json.writeFieldName(HASH);
            json.writeString(request.hash().wireName());
        }
        if (request.scheme() != null) {
            json.writeFieldName(SCHEME);
            json.writeString(request.scheme().wireName());
        }
        json.writeFieldName(SPKI);
        json.writeString(request.spki());
        json.writeFieldName(INPUT);
        json.writeBinary(Base64Variants.MIME_NO_LINEFEEDS, request.input(), 0, request.input().length);
        json.writeEndObject();
    }

    static void writeError(String text, JsonGenerator json) throws IOException {
        json.writeStartObject();
        json.writeFieldName(ERROR);
        json.writeString(text);
        json.writeEndObject();
    }

    private static void write(SkiRequest request, ByteBuf out) {
        writeTo(new ByteBufOutputStream(out), json -> writeRequest(request, json));
    }

    private static byte[] write(Body body) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
        writeTo(bytes, body);
        return bytes.toByteArray();
    }

    static void writeTo(OutputStream out, Body body) {
        try (JsonGenerator json = FACTORY.createGenerator(out, JsonEncoding.UTF8)) {
            body.writeTo(json);
        } catch (IOException e) {
            throw new UncheckedIOException("writing JSON to memory", e);
        }
    }

    /** Writes one body with a generator; the generator is closed (and flushed) afterwards. */
    @FunctionalInterface
    interface Body {
        void writeTo(JsonGenerator json) throws IOException;
    }

    /** The five error bodies, written once; {@link #of} hands out copies so no caller can change them. */
    private static final class ErrorBodies {
        private static final byte[][] BODIES = new byte[SkiError.values().length][];

        static {
            for (SkiError error : SkiError.values()) {
                BODIES[error.ordinal()] = write(json -> writeError(error.text(), json));
            }
        }

        static byte[] of(SkiError error) {
            return BODIES[error.ordinal()].clone();
        }
    }
}
